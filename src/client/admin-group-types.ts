// The group admin calls that know the three kinds of group a Kafka 4 coordinator holds, in the
// shapes of Kafka's AdminClient: classic groups (DescribeGroups, in admin-groups.ts), consumer
// groups of KIP-848 (describeConsumerGroups: ConsumerGroupDescribe 69) and share groups of KIP-932
// (describeShareGroups: ShareGroupDescribe 77; listShareGroupOffsets: DescribeShareGroupOffsets 90,
// whose v1 adds the lag; alterShareGroupOffsets: AlterShareGroupOffsets 91).
//
// A group's type comes from ListGroups v5 (KIP-848 added the types) asked of its coordinator; a
// coordinator without v5 knows only classic groups. Kafka answers a describe of the wrong type
// with GROUP_ID_NOT_FOUND ("… is not a share group"), as for a group that does not exist: both
// come back as null here. Coordinator errors are retried as in admin-groups.ts.
import type { ErrorName } from '../protocol/errors.js'
import { ConsumerGroupDescribeRequest, ConsumerGroupDescribeResponse } from '../protocol/messages/69-consumer-group-describe.js'
import { ShareGroupDescribeRequest, ShareGroupDescribeResponse } from '../protocol/messages/77-share-group-describe.js'
import { AlterShareGroupOffsetsRequest, AlterShareGroupOffsetsResponse } from '../protocol/messages/91-alter-share-group-offsets.js'
import {
  DescribeShareGroupOffsetsRequest,
  DescribeShareGroupOffsetsResponse,
} from '../protocol/messages/90-describe-share-group-offsets.js'
import type { TopicAssignment } from '../protocol/consumer-protocol.js'
import { byTopicPartition, findCoordinator, listGroupsOn, retryingCoordinator, type TopicPartition } from './admin-groups.js'
import type { KafkaClient } from './client.js'
import { ClientError, errorName, throwIfError } from './errors.js'

/** 'classic', 'consumer', 'share' (or another type a newer broker names). */
export type GroupType = string

export interface TypedMemberDescription {
  memberId: string
  /** Static membership (consumer groups only). */
  instanceId: string | null
  rackId: string | null
  clientId: string
  clientHost: string
  memberEpoch: number
  subscribedTopics: string[]
  /** The partitions the member has now. */
  assignment: TopicAssignment[]
  /** Consumer groups: what the member is moving to (null for share groups). */
  targetAssignment: TopicAssignment[] | null
}

export interface TypedGroupDescription {
  groupId: string
  groupType: 'consumer' | 'share'
  /** Empty, Assigning, Reconciling, Stable, Dead. */
  state: string
  groupEpoch: number
  assignmentEpoch: number
  assignor: string
  members: TypedMemberDescription[]
  coordinator: number
}

export interface ShareGroupOffset extends TopicPartition {
  /** The share-partition start offset (SPSO); -1 before the group read the partition. */
  startOffset: number
  leaderEpoch: number
  /** Records not yet delivered and acknowledged (DescribeShareGroupOffsets v1); -1 when not known. */
  lag: number
  error: ErrorName | null
}

/** The type of a group per its coordinator's ListGroups (v5+), 'classic' below v5, null for an unknown group. */
export async function groupTypeOf(client: KafkaClient, groupId: string): Promise<GroupType | null> {
  return retryingCoordinator(client, async () => {
    const nodeId = await findCoordinator(client, groupId)
    const g = (await listGroupsOn(client, nodeId)).find((x) => x.groupId === groupId)
    if (!g) return null
    return g.groupType ?? 'classic'
  })
}

const assignmentOf = (a: { topicPartitions: Array<{ topicName: string; partitions: number[] }> }): TopicAssignment[] =>
  a.topicPartitions
    .map((t) => ({ topic: t.topicName, partitions: [...t.partitions].sort((x, y) => x - y) }))
    .sort((x, y) => (x.topic < y.topic ? -1 : x.topic > y.topic ? 1 : 0))

interface DescribedModernGroup {
  groupId: string
  errorCode: number
  errorMessage: string | null
  groupState: string
  groupEpoch: number
  assignmentEpoch: number
  assignorName: string
}

/** One group of a ConsumerGroupDescribe / ShareGroupDescribe at its coordinator; null when there is none of that id and type. */
async function describeModern<G extends DescribedModernGroup>(
  client: KafkaClient,
  groupId: string,
  api: string,
  send: (nodeId: number) => Promise<{ groups: G[] }>,
  build: (g: G) => Pick<TypedGroupDescription, 'groupType' | 'members'>,
): Promise<TypedGroupDescription | null> {
  return retryingCoordinator(client, async () => {
    const nodeId = await findCoordinator(client, groupId)
    const res = await send(nodeId)
    const g = res.groups.find((x) => x.groupId === groupId) ?? res.groups[0]
    if (!g) throw new ClientError('CORRUPT_MESSAGE', `${api} ${groupId}: the group is missing from the answer`)
    if (errorName(g.errorCode) === 'GROUP_ID_NOT_FOUND') return null
    throwIfError(g.errorCode, `${api} ${groupId}`, g.errorMessage)
    return {
      groupId,
      state: g.groupState,
      groupEpoch: g.groupEpoch,
      assignmentEpoch: g.assignmentEpoch,
      assignor: g.assignorName,
      coordinator: nodeId,
      ...build(g),
    }
  })
}

/** A KIP-848 consumer group (ConsumerGroupDescribe); null when there is none of that id and type. */
export function describeConsumerGroup(client: KafkaClient, groupId: string): Promise<TypedGroupDescription | null> {
  return describeModern(
    client,
    groupId,
    'ConsumerGroupDescribe',
    (nodeId) =>
      client.request(
        ConsumerGroupDescribeRequest,
        ConsumerGroupDescribeResponse,
        { groupIds: [groupId], includeAuthorizedOperations: false },
        { nodeId },
      ),
    (g) => ({
      groupType: 'consumer',
      members: g.members.map((m) => ({
        memberId: m.memberId,
        instanceId: m.instanceId,
        rackId: m.rackId,
        clientId: m.clientId,
        clientHost: m.clientHost,
        memberEpoch: m.memberEpoch,
        subscribedTopics: [...m.subscribedTopicNames].sort(),
        assignment: assignmentOf(m.assignment),
        targetAssignment: assignmentOf(m.targetAssignment),
      })),
    }),
  )
}

/** A KIP-932 share group (ShareGroupDescribe); null when there is none of that id and type. */
export function describeShareGroup(client: KafkaClient, groupId: string): Promise<TypedGroupDescription | null> {
  return describeModern(
    client,
    groupId,
    'ShareGroupDescribe',
    (nodeId) =>
      client.request(
        ShareGroupDescribeRequest,
        ShareGroupDescribeResponse,
        { groupIds: [groupId], includeAuthorizedOperations: false },
        { nodeId },
      ),
    (g) => ({
      groupType: 'share',
      members: g.members.map((m) => ({
        memberId: m.memberId,
        instanceId: null,
        rackId: m.rackId,
        clientId: m.clientId,
        clientHost: m.clientHost,
        memberEpoch: m.memberEpoch,
        subscribedTopics: [...m.subscribedTopicNames].sort(),
        assignment: assignmentOf(m.assignment),
        targetAssignment: null,
      })),
    }),
  )
}

/**
 * A share group's start offset and lag per partition it has state for (DescribeShareGroupOffsets
 * with every topic: null), sorted by topic and partition; [] for a group with none.
 */
export async function listShareGroupOffsets(client: KafkaClient, groupId: string): Promise<ShareGroupOffset[]> {
  return retryingCoordinator(client, async () => {
    const nodeId = await findCoordinator(client, groupId)
    const res = await client.request(
      DescribeShareGroupOffsetsRequest,
      DescribeShareGroupOffsetsResponse,
      { groups: [{ groupId, topics: null }] },
      { nodeId },
    )
    const g = res.groups.find((x) => x.groupId === groupId) ?? res.groups[0]
    if (!g) throw new ClientError('CORRUPT_MESSAGE', `DescribeShareGroupOffsets ${groupId}: the group is missing from the answer`)
    if (errorName(g.errorCode) === 'GROUP_ID_NOT_FOUND') return []
    throwIfError(g.errorCode, `DescribeShareGroupOffsets ${groupId}`, g.errorMessage)
    const out: ShareGroupOffset[] = []
    for (const t of g.topics) {
      for (const p of t.partitions) {
        out.push({
          topic: t.topicName,
          partition: p.partitionIndex,
          startOffset: p.startOffset,
          leaderEpoch: p.leaderEpoch,
          lag: p.lag,
          error: p.errorCode === 0 ? null : errorName(p.errorCode),
        })
      }
    }
    return out.sort(byTopicPartition)
  })
}

export interface ShareGroupOffsetChange extends TopicPartition {
  error: ErrorName | null
  message: string | null
}

/**
 * Sets a share group's start offsets (AlterShareGroupOffsets 91), as kafka-share-groups.sh
 * --reset-offsets --execute does; the group must have no members (NON_EMPTY_GROUP otherwise,
 * thrown with the other group-level errors). Per-partition outcomes, sorted.
 */
export async function alterShareGroupOffsets(
  client: KafkaClient,
  groupId: string,
  offsets: ReadonlyArray<TopicPartition & { startOffset: number }>,
): Promise<ShareGroupOffsetChange[]> {
  const byTopic = new Map<string, Array<{ partitionIndex: number; startOffset: number }>>()
  for (const o of offsets) {
    let list = byTopic.get(o.topic)
    if (!list) byTopic.set(o.topic, (list = []))
    list.push({ partitionIndex: o.partition, startOffset: o.startOffset })
  }
  return retryingCoordinator(client, async () => {
    const nodeId = await findCoordinator(client, groupId)
    const res = await client.request(
      AlterShareGroupOffsetsRequest,
      AlterShareGroupOffsetsResponse,
      { groupId, topics: [...byTopic].map(([topicName, partitions]) => ({ topicName, partitions })) },
      { nodeId },
    )
    throwIfError(res.errorCode, `AlterShareGroupOffsets ${groupId}`, res.errorMessage)
    const out: ShareGroupOffsetChange[] = []
    for (const t of res.responses) {
      for (const p of t.partitions) {
        out.push({
          topic: t.topicName,
          partition: p.partitionIndex,
          error: p.errorCode === 0 ? null : errorName(p.errorCode),
          message: p.errorMessage,
        })
      }
    }
    return out.sort(byTopicPartition)
  })
}
