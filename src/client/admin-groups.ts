// Consumer-group administration on the client, in the shapes Kafka's AdminClient gives them
// (listConsumerGroups, describeConsumerGroups, listConsumerGroupOffsets, alterConsumerGroupOffsets,
// deleteConsumerGroups, deleteConsumerGroupOffsets): what `tributary group` is built on.
//
// A group lives on its coordinator (FindCoordinator, key type 0), and every request about one
// group goes there. Listing asks every broker, because each answers only for the groups it
// coordinates — Kafka's AdminClient lists the same way.
//
// Coordinator errors are retried with a fresh lookup until the client's request timeout has
// passed, as Kafka's AdminClient retries them: COORDINATOR_NOT_AVAILABLE (Kafka answers it while
// `__consumer_offsets` is being created on first use), COORDINATOR_LOAD_IN_PROGRESS (offsets are
// being replayed after a start) and NOT_COORDINATOR (the group's partition moved). Every other
// error is returned or thrown to the caller.
//
// Offsets committed here use generation -1 and an empty member id: the form Kafka's
// kafka-consumer-groups.sh --reset-offsets uses, which a coordinator accepts only while the group
// has no members.
import { setTimeout as sleep } from 'node:timers/promises'
import type { ErrorName } from '../protocol/errors.js'
import { type TopicAssignment, decodeAssignment } from '../protocol/consumer-protocol.js'
import { OffsetCommitRequest, OffsetCommitResponse } from '../protocol/messages/08-offset-commit.js'
import { OffsetFetchRequest, OffsetFetchResponse } from '../protocol/messages/09-offset-fetch.js'
import { FindCoordinatorRequest, FindCoordinatorResponse } from '../protocol/messages/10-find-coordinator.js'
import { DescribeGroupsRequest, DescribeGroupsResponse } from '../protocol/messages/15-describe-groups.js'
import { ListGroupsRequest, ListGroupsResponse } from '../protocol/messages/16-list-groups.js'
import { DeleteGroupsRequest, DeleteGroupsResponse } from '../protocol/messages/42-delete-groups.js'
import { OffsetDeleteRequest, OffsetDeleteResponse } from '../protocol/messages/47-offset-delete.js'
import { listOffsets } from './admin.js'
import { OFFSET_COMMIT_BY_NAME_MAX_VERSION, OFFSET_FETCH_BY_NAME_MAX_VERSION } from './api-versions.js'
import type { KafkaClient } from './client.js'
import { ClientError, errorName, throwIfError } from './errors.js'

export interface TopicPartition {
  topic: string
  partition: number
}

export interface GroupListing {
  groupId: string
  /** 'consumer' for consumer groups; '' for a group that only commits offsets. */
  protocolType: string
  /** Empty, PreparingRebalance, CompletingRebalance, Stable, Dead (also Assigning, Reconciling on KIP-848 groups). */
  state: string
  /** 'classic', 'consumer', 'share', … (ListGroups v5+); null when the broker does not say. */
  groupType: string | null
  /** The node id of the group's coordinator (the broker that listed it). */
  coordinator: number
}

export interface GroupMemberDescription {
  memberId: string
  groupInstanceId: string | null
  clientId: string
  clientHost: string
  /** The partitions assigned to the member; null when they are not a consumer assignment. */
  assignment: TopicAssignment[] | null
}

export interface GroupDescription {
  groupId: string
  /** 'Dead' for a group the coordinator does not know. */
  state: string
  protocolType: string
  /** The selected protocol (for consumer groups, the assignor); '' until the group is Stable. */
  protocol: string
  members: GroupMemberDescription[]
  coordinator: number
}

export interface CommittedOffset extends TopicPartition {
  offset: number
  metadata: string | null
}

export interface PartitionOutcome extends TopicPartition {
  /** null on success. */
  error: ErrorName | null
}

/** Offsets per topic, per partition. */
export type OffsetsByTopic = Map<string, Map<number, number>>

const COORDINATOR_RETRIABLE: ReadonlySet<ErrorName> = new Set([
  'COORDINATOR_NOT_AVAILABLE',
  'COORDINATOR_LOAD_IN_PROGRESS',
  'NOT_COORDINATOR',
])
const BACKOFF_MIN_MS = 100
const BACKOFF_MAX_MS = 1000

/** Runs fn again while it fails with a coordinator error, until the client's request timeout. */
export async function retryingCoordinator<T>(client: KafkaClient, fn: () => Promise<T>): Promise<T> {
  const deadline = performance.now() + client.requestTimeoutMs
  for (let attempt = 0; ; attempt++) {
    try {
      return await fn()
    } catch (err) {
      if (!(err instanceof ClientError) || !COORDINATOR_RETRIABLE.has(err.code)) throw err
      const wait = Math.min(BACKOFF_MAX_MS, BACKOFF_MIN_MS * 2 ** attempt)
      if (performance.now() + wait > deadline) throw err
      await sleep(wait)
    }
  }
}

/** Throws the first coordinator error among per-partition or per-group codes, so it is retried. */
function throwIfCoordinatorError(codes: Iterable<number>, context: string): void {
  for (const code of codes) {
    if (code !== 0 && COORDINATOR_RETRIABLE.has(errorName(code))) throwIfError(code, context)
  }
}

/** FindCoordinator's key types. */
export const CoordinatorType = { Group: 0, Transaction: 1 } as const

/**
 * The node id of a group's coordinator (FindCoordinator key type 0), or of a transactional id's
 * (key type 1, FindCoordinator v1+).
 */
export async function findCoordinator(client: KafkaClient, groupId: string, keyType: number = CoordinatorType.Group): Promise<number> {
  return retryingCoordinator(client, () => findCoordinatorOnce(client, groupId, keyType))
}

async function findCoordinatorOnce(client: KafkaClient, groupId: string, keyType = 0): Promise<number> {
  let version = 0
  const res = await client.request(FindCoordinatorRequest, FindCoordinatorResponse, (v) => {
    version = v
    if (keyType !== 0 && v < 1) throw new ClientError('UNSUPPORTED_VERSION', 'FindCoordinator v0 finds group coordinators only')
    return v >= 4 ? { keyType, coordinatorKeys: [groupId] } : { key: groupId, keyType }
  })
  if (version >= 4) {
    const c = res.coordinators.find((x) => x.key === groupId) ?? res.coordinators[0]
    if (!c) throw new ClientError('COORDINATOR_NOT_AVAILABLE', `FindCoordinator ${groupId}: empty answer`)
    throwIfError(c.errorCode, `FindCoordinator ${groupId}`, c.errorMessage)
    return c.nodeId
  }
  throwIfError(res.errorCode, `FindCoordinator ${groupId}`, res.errorMessage)
  return res.nodeId
}

/** Runs fn on the group's coordinator, looking it up again after a coordinator error. */
function onCoordinator<T>(client: KafkaClient, groupId: string, fn: (nodeId: number) => Promise<T>): Promise<T> {
  return retryingCoordinator(client, async () => fn(await findCoordinatorOnce(client, groupId)))
}

/** Every group of every broker, sorted by id. States come from ListGroups v4+, else DescribeGroups. */
export async function listGroups(client: KafkaClient): Promise<GroupListing[]> {
  await client.metadata([], { refresh: true })
  const nodes = [...client.cluster.brokers.keys()]
  const perNode = await Promise.all(nodes.map((nodeId) => retryingCoordinator(client, () => listGroupsOn(client, nodeId))))
  const byId = new Map<string, GroupListing>()
  for (const list of perNode) for (const g of list) byId.set(g.groupId, g)
  return [...byId.values()].sort((a, b) => (a.groupId < b.groupId ? -1 : a.groupId > b.groupId ? 1 : 0))
}

/** The groups one broker coordinates (ListGroups to that node). */
export async function listGroupsOn(client: KafkaClient, nodeId: number): Promise<GroupListing[]> {
  let version = 0
  const res = await client.request(
    ListGroupsRequest,
    ListGroupsResponse,
    (v) => {
      version = v
      return { statesFilter: [], typesFilter: [] }
    },
    { nodeId },
  )
  throwIfError(res.errorCode, `ListGroups on node ${nodeId}`)
  const groups: GroupListing[] = res.groups.map((g) => ({
    groupId: g.groupId,
    protocolType: g.protocolType,
    state: version >= 4 ? g.groupState : '',
    groupType: version >= 5 ? g.groupType : null,
    coordinator: nodeId,
  }))
  if (version < 4 && groups.length > 0) {
    // KIP-518 added the state to ListGroups (v4); before that, ask the same coordinator.
    const described = await describeGroupsOn(
      client,
      nodeId,
      groups.map((g) => g.groupId),
    )
    for (const g of groups) g.state = described.get(g.groupId)?.state ?? 'Unknown'
  }
  return groups
}

async function describeGroupsOn(client: KafkaClient, nodeId: number, groupIds: string[]): Promise<Map<string, GroupDescription>> {
  const res = await client.request(
    DescribeGroupsRequest,
    DescribeGroupsResponse,
    { groups: groupIds, includeAuthorizedOperations: false },
    { nodeId },
  )
  throwIfCoordinatorError(
    res.groups.map((g) => g.errorCode),
    'DescribeGroups',
  )
  const out = new Map<string, GroupDescription>()
  for (const g of res.groups) {
    // Kafka 4's coordinator answers GROUP_ID_NOT_FOUND (DescribeGroups v6) where older ones
    // described an unknown group as Dead; both mean the same here.
    if (g.errorCode !== 0 && errorName(g.errorCode) !== 'GROUP_ID_NOT_FOUND') throwIfError(g.errorCode, `DescribeGroups ${g.groupId}`)
    const dead = g.errorCode !== 0
    out.set(g.groupId, {
      groupId: g.groupId,
      state: dead ? 'Dead' : g.groupState,
      protocolType: g.protocolType,
      protocol: g.protocolData,
      coordinator: nodeId,
      members: g.members.map((m) => ({
        memberId: m.memberId,
        groupInstanceId: m.groupInstanceId,
        clientId: m.clientId,
        clientHost: m.clientHost,
        assignment: g.protocolType === 'consumer' ? decodeAssignment(m.memberAssignment) : null,
      })),
    })
  }
  return out
}

/** State, protocol and members (with their assignments) of one group. */
export async function describeGroup(client: KafkaClient, groupId: string): Promise<GroupDescription> {
  return onCoordinator(client, groupId, async (nodeId) => {
    const d = (await describeGroupsOn(client, nodeId, [groupId])).get(groupId)
    if (!d) throw new ClientError('CORRUPT_MESSAGE', `DescribeGroups ${groupId}: the group is missing from the answer`)
    return d
  })
}

/** The group's committed offsets (partitions without one are left out), sorted by topic and partition. */
export async function fetchCommittedOffsets(client: KafkaClient, groupId: string): Promise<CommittedOffset[]> {
  return onCoordinator(client, groupId, async (nodeId) => {
    let version = 0
    const res = await client.request(
      OffsetFetchRequest,
      OffsetFetchResponse,
      (v) => {
        version = v
        // topics = null (every committed partition) exists from v2; v8 moved the group into groups[].
        if (v < 2) throw new ClientError('UNSUPPORTED_VERSION', 'OffsetFetch v2 or newer is needed to list all committed offsets')
        return v >= 8
          ? { groups: [{ groupId, memberId: null, memberEpoch: -1, topics: null }], requireStable: false }
          : { groupId, topics: null, requireStable: false }
      },
      { nodeId, maxVersion: OFFSET_FETCH_BY_NAME_MAX_VERSION },
    )
    let topics: typeof res.topics
    if (version >= 8) {
      const g = res.groups.find((x) => x.groupId === groupId)
      if (!g) throw new ClientError('CORRUPT_MESSAGE', `OffsetFetch ${groupId}: the group is missing from the answer`)
      throwIfError(g.errorCode, `OffsetFetch ${groupId}`)
      topics = g.topics
    } else {
      throwIfError(res.errorCode, `OffsetFetch ${groupId}`)
      topics = res.topics
    }
    const out: CommittedOffset[] = []
    for (const t of topics) {
      for (const p of t.partitions) {
        throwIfError(p.errorCode, `OffsetFetch ${groupId} ${t.name}-${p.partitionIndex}`)
        if (p.committedOffset >= 0)
          out.push({ topic: t.name, partition: p.partitionIndex, offset: p.committedOffset, metadata: p.metadata })
      }
    }
    return out.sort(byTopicPartition)
  })
}

/**
 * Commits offsets for a group without members (generation -1, empty member id). Per-partition
 * outcomes are returned; a group with members answers UNKNOWN_MEMBER_ID or ILLEGAL_GENERATION.
 */
export async function commitOffsets(
  client: KafkaClient,
  groupId: string,
  offsets: ReadonlyArray<TopicPartition & { offset: number }>,
): Promise<PartitionOutcome[]> {
  const byTopic = new Map<string, Array<{ partition: number; offset: number }>>()
  for (const o of offsets) {
    const list = byTopic.get(o.topic) ?? []
    list.push({ partition: o.partition, offset: o.offset })
    byTopic.set(o.topic, list)
  }
  return onCoordinator(client, groupId, async (nodeId) => {
    const res = await client.request(
      OffsetCommitRequest,
      OffsetCommitResponse,
      {
        groupId,
        generationIdOrMemberEpoch: -1,
        memberId: '',
        groupInstanceId: null,
        retentionTimeMs: -1,
        topics: [...byTopic].map(([name, list]) => ({
          name,
          partitions: list.map((p) => ({
            partitionIndex: p.partition,
            committedOffset: p.offset,
            committedLeaderEpoch: -1,
            committedMetadata: '',
          })),
        })),
      },
      { nodeId, maxVersion: OFFSET_COMMIT_BY_NAME_MAX_VERSION },
    )
    throwIfCoordinatorError(
      res.topics.flatMap((t) => t.partitions.map((p) => p.errorCode)),
      `OffsetCommit ${groupId}`,
    )
    return res.topics
      .flatMap((t) =>
        t.partitions.map((p) => ({ topic: t.name, partition: p.partitionIndex, error: p.errorCode === 0 ? null : errorName(p.errorCode) })),
      )
      .sort(byTopicPartition)
  })
}

/** Deletes groups (each must be empty); one outcome per group, in the order given. */
export async function deleteGroups(client: KafkaClient, groupIds: string[]): Promise<Array<{ groupId: string; error: ErrorName | null }>> {
  return Promise.all(
    groupIds.map((groupId) =>
      onCoordinator(client, groupId, async (nodeId) => {
        const res = await client.request(DeleteGroupsRequest, DeleteGroupsResponse, { groupsNames: [groupId] }, { nodeId })
        const r = res.results.find((x) => x.groupId === groupId)
        if (!r) throw new ClientError('CORRUPT_MESSAGE', `DeleteGroups ${groupId}: the group is missing from the answer`)
        throwIfCoordinatorError([r.errorCode], `DeleteGroups ${groupId}`)
        return { groupId, error: r.errorCode === 0 ? null : errorName(r.errorCode) }
      }),
    ),
  )
}

/**
 * Deletes a group's committed offsets for some partitions (OffsetDelete). `error` is the
 * group-level outcome (GROUP_ID_NOT_FOUND, NON_EMPTY_GROUP, …); per-partition ones follow.
 */
export async function deleteOffsets(
  client: KafkaClient,
  groupId: string,
  partitions: readonly TopicPartition[],
): Promise<{ error: ErrorName | null; partitions: PartitionOutcome[] }> {
  const byTopic = new Map<string, number[]>()
  for (const p of partitions) byTopic.set(p.topic, [...(byTopic.get(p.topic) ?? []), p.partition])
  return onCoordinator(client, groupId, async (nodeId) => {
    const res = await client.request(
      OffsetDeleteRequest,
      OffsetDeleteResponse,
      { groupId, topics: [...byTopic].map(([name, list]) => ({ name, partitions: list.map((partitionIndex) => ({ partitionIndex })) })) },
      { nodeId },
    )
    throwIfCoordinatorError([res.errorCode], `OffsetDelete ${groupId}`)
    return {
      error: res.errorCode === 0 ? null : errorName(res.errorCode),
      partitions: res.topics
        .flatMap((t) =>
          t.partitions.map((p) => ({
            topic: t.name,
            partition: p.partitionIndex,
            error: p.errorCode === 0 ? null : errorName(p.errorCode),
          })),
        )
        .sort(byTopicPartition),
    }
  })
}

/**
 * ListOffsets for partitions of several topics (a timestamp, or OffsetSpec.Earliest / Latest).
 * Topics that do not exist are left out of the answer; other errors are thrown.
 */
export async function listOffsetsOf(
  client: KafkaClient,
  partitions: readonly TopicPartition[],
  timestamp: number,
): Promise<OffsetsByTopic> {
  const byTopic = new Map<string, number[]>()
  for (const p of partitions) {
    const list = byTopic.get(p.topic) ?? []
    if (!list.includes(p.partition)) list.push(p.partition)
    byTopic.set(p.topic, list)
  }
  const out: OffsetsByTopic = new Map()
  await Promise.all(
    [...byTopic].map(async ([topic, list]) => {
      try {
        out.set(topic, await listOffsets(client, topic, list, timestamp))
      } catch (err) {
        if (!(err instanceof ClientError && err.code === 'UNKNOWN_TOPIC_OR_PARTITION')) throw err
      }
    }),
  )
  return out
}

export function byTopicPartition(a: TopicPartition, b: TopicPartition): number {
  if (a.topic !== b.topic) return a.topic < b.topic ? -1 : 1
  return a.partition - b.partition
}
