// A member of a classic consumer group (protocol type "consumer"): the part of Kafka's
// ConsumerCoordinator that a tool needs to share a topic's partitions with other consumers of any
// client, and to keep its position in the group's committed offsets.
//
//   const member = new ConsumerGroupMember({ client, groupId: 'billing', topics: ['events'] })
//   const { assignment } = await member.join()        // FindCoordinator, JoinGroup, SyncGroup
//   …fetch; when member.rejoinNeeded: commit, join() again…
//   await member.commit([{ topic: 'events', partition: 0, offset: 42 }])
//   await member.leave(); member.close()
//
// Joining: JoinGroup with an empty member id gets MEMBER_ID_REQUIRED and the id to use (KIP-394);
// the elected leader computes everyone's assignment with the protocol the coordinator chose and
// hands it over in SyncGroup; the others get theirs from SyncGroup. REBALANCE_IN_PROGRESS,
// ILLEGAL_GENERATION and UNKNOWN_MEMBER_ID on the way mean: join again.
//
// Protocols offered, in order of preference: "range" and "roundrobin" (Kafka's Java assignor
// names, also librdkafka's) and "RoundRobinAssigner" (kafkajs's name for the same round-robin
// strategy, its default) — the coordinator picks one every member offers, so a group mixed with
// kafkajs, Java or librdkafka consumers agrees on one. The assignors follow Kafka's RangeAssignor
// and RoundRobinAssignor exactly.
//
// Heartbeats go every heartbeatIntervalMs while the member is in a generation. A heartbeat that
// answers REBALANCE_IN_PROGRESS (or says the member or generation is gone) sets rejoinNeeded:
// the owner commits what it processed (accepted while the group prepares the rebalance, as in
// Kafka) and calls join() again — the eager protocol, as kafkajs and Kafka's console consumer use.
//
// The member talks to its coordinator over a connection of its own (as Kafka's consumer does), so
// a JoinGroup parked at the coordinator never waits behind a long-polling Fetch, or the reverse.
import type { ErrorName } from '../protocol/errors.js'
import {
  type TopicAssignment,
  decodeAssignment,
  decodeSubscriptionTopics,
  encodeAssignment,
  encodeSubscription,
} from '../protocol/consumer-protocol.js'
import { OffsetCommitRequest, OffsetCommitResponse } from '../protocol/messages/08-offset-commit.js'
import { OffsetFetchRequest, OffsetFetchResponse } from '../protocol/messages/09-offset-fetch.js'
import { FindCoordinatorRequest, FindCoordinatorResponse } from '../protocol/messages/10-find-coordinator.js'
import { JoinGroupRequest, type JoinGroupResponseData, JoinGroupResponse } from '../protocol/messages/11-join-group.js'
import { HeartbeatRequest, HeartbeatResponse } from '../protocol/messages/12-heartbeat.js'
import { LeaveGroupRequest, LeaveGroupResponse } from '../protocol/messages/13-leave-group.js'
import { SyncGroupRequest, SyncGroupResponse, type SyncGroupResponseData } from '../protocol/messages/14-sync-group.js'
import type { Encodable, Message } from '../protocol/schema.js'
import { connectNegotiated, OFFSET_COMMIT_BY_NAME_MAX_VERSION, OFFSET_FETCH_BY_NAME_MAX_VERSION } from './api-versions.js'
import type { KafkaClient } from './client.js'
import type { Connection } from './connection.js'
import type { TopicPartition, TopicPartitionOffset } from './consumer.js'
import { ClientError, errorName, throwIfError } from './errors.js'

// ---------------------------------------------------------------------------------------------
// Assignors.

export interface AssignorMember {
  memberId: string
  groupInstanceId: string | null
  /** The topics the member subscribes to. */
  topics: readonly string[]
}

export interface Assignor {
  /** The protocol name offered in JoinGroup. */
  readonly name: string
  /** Every member's assignment (an entry for each member, maybe empty); topics and partitions sorted. */
  assign(members: readonly AssignorMember[], partitionsPerTopic: ReadonlyMap<string, number>): Map<string, TopicAssignment[]>
}

/** Kafka's member order: static members (by instance id) before dynamic ones (by member id). */
function compareMembers(a: AssignorMember, b: AssignorMember): number {
  if (a.groupInstanceId !== null && b.groupInstanceId !== null) return cmp(a.groupInstanceId, b.groupInstanceId)
  if (a.groupInstanceId !== null) return -1
  if (b.groupInstanceId !== null) return 1
  return cmp(a.memberId, b.memberId)
}

const cmp = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0)

function toAssignment(members: readonly AssignorMember[], owned: Map<string, Map<string, number[]>>): Map<string, TopicAssignment[]> {
  const out = new Map<string, TopicAssignment[]>()
  for (const m of members) {
    const topics = owned.get(m.memberId) ?? new Map<string, number[]>()
    out.set(
      m.memberId,
      [...topics].sort(([a], [b]) => cmp(a, b)).map(([topic, partitions]) => ({ topic, partitions: partitions.sort((x, y) => x - y) })),
    )
  }
  return out
}

function give(owned: Map<string, Map<string, number[]>>, memberId: string, topic: string, partition: number): void {
  let topics = owned.get(memberId)
  if (!topics) owned.set(memberId, (topics = new Map()))
  const list = topics.get(topic) ?? []
  list.push(partition)
  topics.set(topic, list)
}

/**
 * Kafka's RangeAssignor: per topic, its subscribers in member order each get a contiguous range;
 * the first (partitions % subscribers) of them get one extra.
 */
export const rangeAssignor: Assignor = {
  name: 'range',
  assign(members, partitionsPerTopic) {
    const owned = new Map<string, Map<string, number[]>>()
    const topics = [...new Set(members.flatMap((m) => m.topics))].sort(cmp)
    for (const topic of topics) {
      const count = partitionsPerTopic.get(topic)
      if (count === undefined) continue
      const subscribers = members.filter((m) => m.topics.includes(topic)).sort(compareMembers)
      const per = Math.floor(count / subscribers.length)
      const extra = count % subscribers.length
      subscribers.forEach((m, i) => {
        const start = per * i + Math.min(i, extra)
        const length = per + (i < extra ? 1 : 0)
        for (let p = start; p < start + length; p++) give(owned, m.memberId, topic, p)
      })
    }
    return toAssignment(members, owned)
  },
}

/**
 * Kafka's RoundRobinAssignor: every subscribed partition, topics by name then partition index,
 * goes to the next member in member order that subscribes to its topic, cycling.
 */
export const roundRobinAssignor: Assignor = {
  name: 'roundrobin',
  assign(members, partitionsPerTopic) {
    const owned = new Map<string, Map<string, number[]>>()
    const sorted = [...members].sort(compareMembers)
    const topics = [...new Set(members.flatMap((m) => m.topics))].sort(cmp)
    let next = 0
    for (const topic of topics) {
      const count = partitionsPerTopic.get(topic)
      if (count === undefined) continue
      for (let p = 0; p < count; p++) {
        while (!sorted[next % sorted.length]!.topics.includes(topic)) next++
        give(owned, sorted[next % sorted.length]!.memberId, topic, p)
        next++
      }
    }
    return toAssignment(members, owned)
  },
}

/** The round-robin strategy under kafkajs's protocol name (the default of kafkajs consumers). */
export const kafkajsRoundRobinAssignor: Assignor = { name: 'RoundRobinAssigner', assign: roundRobinAssignor.assign }

export const DEFAULT_ASSIGNORS: readonly Assignor[] = [rangeAssignor, roundRobinAssignor, kafkajsRoundRobinAssignor]

// ---------------------------------------------------------------------------------------------
// The member.

export interface GroupMemberOptions {
  client: KafkaClient
  groupId: string
  topics: readonly string[]
  /** Kafka's session.timeout.ms (default 45000). */
  sessionTimeoutMs?: number
  /** Kafka's max.poll.interval.ms, sent as the rebalance timeout (default 60000, as kafkajs). */
  rebalanceTimeoutMs?: number
  /** Default 3000 (heartbeat.interval.ms). */
  heartbeatIntervalMs?: number
  /** Protocols offered, most preferred first. Default DEFAULT_ASSIGNORS. */
  assignors?: readonly Assignor[]
  /** Told when a heartbeat learns the member must rejoin, with the reason. */
  onRejoinNeeded?: (reason: string) => void
  /**
   * OffsetFetch v7+ requireStable: wait (UNSTABLE_OFFSET_COMMIT, retried) while a transaction holds
   * offsets of the partitions pending — what Kafka's consumer asks under read_committed. Default false.
   */
  requireStable?: boolean
}

export interface JoinResult {
  generationId: number
  memberId: string
  isLeader: boolean
  protocol: string
  /** This member's partitions, sorted by topic then partition. */
  assignment: TopicPartition[]
}

/** Codes after which the coordinator must be looked up again. */
const COORDINATOR_MOVED: ReadonlySet<ErrorName> = new Set<ErrorName>(['NOT_COORDINATOR', 'COORDINATOR_NOT_AVAILABLE'])
/** Codes after which the same request is retried after a pause. */
const TRY_AGAIN: ReadonlySet<ErrorName> = new Set<ErrorName>(['COORDINATOR_LOAD_IN_PROGRESS', 'UNSTABLE_OFFSET_COMMIT'])
/** Retries of transient failures before a request's error is thrown. */
const MAX_ATTEMPTS = 20

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms))
const backoff = (attempt: number) => sleep(Math.min(1000, 50 * 2 ** attempt))

export class ConsumerGroupMember {
  readonly groupId: string
  private readonly client: KafkaClient
  private readonly topics: readonly string[]
  private readonly sessionTimeoutMs: number
  private readonly rebalanceTimeoutMs: number
  private readonly heartbeatIntervalMs: number
  private readonly assignors: readonly Assignor[]
  private readonly onRejoinNeeded: GroupMemberOptions['onRejoinNeeded']
  private conn: Connection | undefined
  private coordinator: { host: string; port: number } | undefined
  private memberIdValue = ''
  private generation = -1
  private protocol: string | null = null
  private stable = false
  private pendingJoin: Promise<unknown> | undefined
  private heartbeatTimer: NodeJS.Timeout | undefined

  private readonly requireStable: boolean
  constructor(opts: GroupMemberOptions) {
    this.client = opts.client
    this.groupId = opts.groupId
    this.topics = [...opts.topics]
    this.sessionTimeoutMs = opts.sessionTimeoutMs ?? 45_000
    this.rebalanceTimeoutMs = opts.rebalanceTimeoutMs ?? 60_000
    this.heartbeatIntervalMs = opts.heartbeatIntervalMs ?? 3000
    this.assignors = opts.assignors ?? DEFAULT_ASSIGNORS
    this.onRejoinNeeded = opts.onRejoinNeeded
    this.requireStable = opts.requireStable ?? false
  }

  get memberId(): string {
    return this.memberIdValue
  }

  get generationId(): number {
    return this.generation
  }

  /** True once a rebalance started, or the member lost its generation: call join() again. */
  get rejoinNeeded(): boolean {
    return !this.stable
  }

  /**
   * Joins (or rejoins) the group and resolves with this member's assignment. Rejects with the
   * signal's reason when it aborts, and with a ClientError when the coordinator refuses the member
   * (INCONSISTENT_GROUP_PROTOCOL, INVALID_SESSION_TIMEOUT, GROUP_AUTHORIZATION_FAILED, …).
   */
  async join(signal?: AbortSignal): Promise<JoinResult> {
    this.stopHeartbeats()
    this.stable = false
    for (let attempt = 0; ; attempt++) {
      signal?.throwIfAborted()
      if (attempt >= MAX_ATTEMPTS)
        throw new ClientError('REBALANCE_IN_PROGRESS', `group ${this.groupId}: no stable generation after ${attempt} attempts`)
      const joined = await this.joinGroup(signal)
      if (!joined) {
        await backoff(attempt)
        continue
      }
      const assignment = await this.syncGroup(joined)
      if (!assignment) continue
      this.stable = true
      this.scheduleHeartbeat()
      return {
        generationId: this.generation,
        memberId: this.memberIdValue,
        isLeader: joined.leader === this.memberIdValue,
        protocol: this.protocol ?? '',
        assignment: assignment.flatMap((a) => a.partitions.map((partition) => ({ topic: a.topic, partition }))),
      }
    }
  }

  /** Committed offsets of the given partitions by partitionKey(); partitions without one are absent. */
  async committed(partitions: readonly TopicPartition[]): Promise<Map<string, number>> {
    const byTopic = groupByTopic(partitions)
    const topics = [...byTopic].map(([name, list]) => ({ name, partitionIndexes: list }))
    for (let attempt = 0; ; attempt++) {
      const res = await this.send(
        OffsetFetchRequest,
        OffsetFetchResponse,
        (v) =>
          v >= 8
            ? { groups: [{ groupId: this.groupId, memberId: null, memberEpoch: -1, topics }], requireStable: this.requireStable }
            : { groupId: this.groupId, topics, requireStable: this.requireStable },
        undefined,
        OFFSET_FETCH_BY_NAME_MAX_VERSION,
      )
      const group = res.groups?.[0]
      const code = group ? group.errorCode : (res.errorCode ?? 0)
      const answered = group ? group.topics : res.topics
      const partitionCode = answered.flatMap((t) => t.partitions).find((p) => p.errorCode !== 0)?.errorCode ?? 0
      const error = code !== 0 ? code : partitionCode
      if (error !== 0 && (await this.shouldRetry(error, attempt))) continue
      throwIfError(error, `OffsetFetch ${this.groupId}`)
      const out = new Map<string, number>()
      for (const t of answered) {
        for (const p of t.partitions) if (p.committedOffset >= 0) out.set(partitionKey(t.name, p.partitionIndex), p.committedOffset)
      }
      return out
    }
  }

  /**
   * Commits offsets (each the next offset to read) in the current generation. Failures that mean
   * the member must rejoin (REBALANCE_IN_PROGRESS, ILLEGAL_GENERATION, UNKNOWN_MEMBER_ID) set
   * rejoinNeeded and are thrown as ClientErrors, like every other failure.
   */
  async commit(offsets: readonly TopicPartitionOffset[]): Promise<void> {
    if (offsets.length === 0) return
    const topics = offsetCommitTopics(offsets)
    for (let attempt = 0; ; attempt++) {
      const res = await this.send(
        OffsetCommitRequest,
        OffsetCommitResponse,
        () => ({
          groupId: this.groupId,
          generationIdOrMemberEpoch: this.generation,
          memberId: this.memberIdValue,
          groupInstanceId: null,
          retentionTimeMs: -1,
          topics,
        }),
        undefined,
        OFFSET_COMMIT_BY_NAME_MAX_VERSION,
      )
      const error = res.topics.flatMap((t) => t.partitions).find((p) => p.errorCode !== 0)?.errorCode ?? 0
      if (error === 0) return
      if (await this.shouldRetry(error, attempt)) continue
      this.noteGenerationError(errorName(error), 'offset commit')
      throwIfError(error, `OffsetCommit ${this.groupId} generation ${this.generation}`)
    }
  }

  /**
   * Leaves the group (LeaveGroup), so the others rebalance at once rather than after the session
   * timeout. A member that is not in the group (never joined, or removed) has nothing to do.
   */
  async leave(reason = 'the consumer is closing'): Promise<void> {
    this.stopHeartbeats()
    this.stable = false
    const memberId = this.memberIdValue
    this.memberIdValue = ''
    this.generation = -1
    if (memberId === '') return
    // A JoinGroup parked at the coordinator would hold back a request on the same connection.
    const conn = this.pendingJoin ? await this.openCoordinatorConnection() : await this.coordinatorConnection()
    try {
      const v = conn.versions!.pick(LeaveGroupRequest, LeaveGroupResponse)
      const res = await conn.request(
        LeaveGroupRequest,
        LeaveGroupResponse,
        v,
        v >= 3 ? { groupId: this.groupId, members: [{ memberId, groupInstanceId: null, reason }] } : { groupId: this.groupId, memberId },
      )
      const code = res.errorCode !== 0 ? res.errorCode : (res.members?.find((m) => m.errorCode !== 0)?.errorCode ?? 0)
      if (code !== 0 && errorName(code) !== 'UNKNOWN_MEMBER_ID') throwIfError(code, `LeaveGroup ${this.groupId}`)
    } finally {
      if (conn !== this.conn) conn.close()
    }
  }

  /** Stops heartbeats and closes the coordinator connection (leave() first to leave cleanly). */
  close(): void {
    this.stopHeartbeats()
    this.stable = false
    this.conn?.close()
    this.conn = undefined
  }

  // -------------------------------------------------------------------------------------------

  /** One JoinGroup; the response when it succeeded, null when it must be sent again. */
  private async joinGroup(signal: AbortSignal | undefined): Promise<JoinGroupResponseData | null> {
    const subscription = encodeSubscription(this.topics)
    let res: JoinGroupResponseData
    try {
      const sent = this.send(
        JoinGroupRequest,
        JoinGroupResponse,
        () => ({
          groupId: this.groupId,
          sessionTimeoutMs: this.sessionTimeoutMs,
          rebalanceTimeoutMs: this.rebalanceTimeoutMs,
          memberId: this.memberIdValue,
          groupInstanceId: null,
          protocolType: 'consumer',
          protocols: this.assignors.map((a) => ({ name: a.name, metadata: subscription })),
          reason: null,
        }),
        this.rebalanceTimeoutMs + 5000, // the coordinator holds JoinGroup until the group rejoined
      )
      // Until it is answered — even after an abort — the JoinGroup occupies the connection.
      this.pendingJoin = sent
      const settled = () => {
        if (this.pendingJoin === sent) this.pendingJoin = undefined
      }
      sent.then(settled, settled)
      res = await abortable(sent, signal)
    } catch (err) {
      if (signal?.aborted) throw err
      if (err instanceof ClientError && err.retriable) {
        this.dropCoordinator()
        return null
      }
      throw err
    }
    const error = res.errorCode === 0 ? null : errorName(res.errorCode)
    switch (error) {
      case null:
        this.memberIdValue = res.memberId
        this.generation = res.generationId
        this.protocol = res.protocolName
        return res
      case 'MEMBER_ID_REQUIRED': // KIP-394: join again with the id the coordinator chose
        this.memberIdValue = res.memberId
        return this.joinGroup(signal)
      case 'UNKNOWN_MEMBER_ID':
        this.memberIdValue = ''
        return null
      case 'REBALANCE_IN_PROGRESS':
      case 'COORDINATOR_LOAD_IN_PROGRESS':
        return null
      default:
        if (COORDINATOR_MOVED.has(error)) {
          this.dropCoordinator()
          return null
        }
        throwIfError(res.errorCode, `JoinGroup ${this.groupId}`)
        return null
    }
  }

  /** SyncGroup (with everyone's assignment if we lead); this member's assignment, or null to rejoin. */
  private async syncGroup(joined: JoinGroupResponseData): Promise<TopicAssignment[] | null> {
    const isLeader = joined.leader === this.memberIdValue && !joined.skipAssignment
    const assignments = isLeader ? await this.assign(joined) : []
    let res: SyncGroupResponseData
    try {
      res = await this.send(SyncGroupRequest, SyncGroupResponse, () => ({
        groupId: this.groupId,
        generationId: this.generation,
        memberId: this.memberIdValue,
        groupInstanceId: null,
        protocolType: 'consumer',
        protocolName: this.protocol,
        assignments,
      }))
    } catch (err) {
      if (err instanceof ClientError && err.retriable) {
        this.dropCoordinator()
        return null
      }
      throw err
    }
    const error = res.errorCode === 0 ? null : errorName(res.errorCode)
    if (error !== null) {
      if (error === 'UNKNOWN_MEMBER_ID') this.memberIdValue = ''
      if (COORDINATOR_MOVED.has(error)) this.dropCoordinator()
      if (
        error === 'REBALANCE_IN_PROGRESS' ||
        error === 'ILLEGAL_GENERATION' ||
        error === 'UNKNOWN_MEMBER_ID' ||
        COORDINATOR_MOVED.has(error)
      ) {
        return null
      }
      throwIfError(res.errorCode, `SyncGroup ${this.groupId}`)
    }
    const assignment = decodeAssignment(res.assignment)
    if (assignment === null) {
      throw new ClientError('INCONSISTENT_GROUP_PROTOCOL', `group ${this.groupId}: the leader's assignment is not a consumer assignment`)
    }
    return assignment
  }

  /** The leader's job: everyone's assignment with the chosen protocol's assignor. */
  private async assign(joined: JoinGroupResponseData): Promise<Array<{ memberId: string; assignment: Buffer }>> {
    const assignor = this.assignors.find((a) => a.name === joined.protocolName)
    if (!assignor)
      throw new ClientError(
        'INCONSISTENT_GROUP_PROTOCOL',
        `group ${this.groupId} chose protocol ${joined.protocolName}, which this member did not offer`,
      )
    const members: AssignorMember[] = joined.members.map((m) => ({
      memberId: m.memberId,
      groupInstanceId: m.groupInstanceId ?? null,
      topics: decodeSubscriptionTopics(m.metadata) ?? [],
    }))
    const topics = [...new Set(members.flatMap((m) => m.topics))]
    const md = await this.client.metadata(topics, { refresh: true })
    const counts = new Map<string, number>()
    for (const [name, t] of md.topics) if (t.error === null && t.partitions.length > 0) counts.set(name, t.partitions.length)
    const plan = assignor.assign(members, counts)
    return members.map((m) => ({ memberId: m.memberId, assignment: encodeAssignment(plan.get(m.memberId) ?? []) }))
  }

  private scheduleHeartbeat(): void {
    this.stopHeartbeats()
    this.heartbeatTimer = setTimeout(() => {
      this.heartbeatTimer = undefined
      this.heartbeat().then(
        () => {
          if (this.stable) this.scheduleHeartbeat()
        },
        () => {
          if (this.stable) this.scheduleHeartbeat()
        },
      )
    }, this.heartbeatIntervalMs)
  }

  private stopHeartbeats(): void {
    if (this.heartbeatTimer) clearTimeout(this.heartbeatTimer)
    this.heartbeatTimer = undefined
  }

  private async heartbeat(): Promise<void> {
    if (!this.stable) return
    const generation = this.generation
    let code: number
    try {
      const res = await this.send(HeartbeatRequest, HeartbeatResponse, () => ({
        groupId: this.groupId,
        generationId: generation,
        memberId: this.memberIdValue,
        groupInstanceId: null,
      }))
      code = res.errorCode
    } catch (err) {
      if (err instanceof ClientError && err.retriable) this.dropCoordinator() // tried again next interval
      throw err
    }
    if (code === 0 || !this.stable || generation !== this.generation) return
    const error = errorName(code)
    if (COORDINATOR_MOVED.has(error)) this.dropCoordinator()
    else this.noteGenerationError(error, 'heartbeat')
  }

  /** Rebalance and membership errors end the generation: the owner must rejoin. */
  private noteGenerationError(error: ErrorName, where: string): void {
    const reasons: Partial<Record<ErrorName, string>> = {
      REBALANCE_IN_PROGRESS: 'the group is rebalancing',
      ILLEGAL_GENERATION: 'the group moved to a new generation',
      UNKNOWN_MEMBER_ID: 'the coordinator no longer knows this member',
      FENCED_INSTANCE_ID: 'another member took this instance id',
    }
    const reason = reasons[error]
    if (reason === undefined || !this.stable) return
    if (error === 'UNKNOWN_MEMBER_ID') this.memberIdValue = ''
    this.stable = false
    this.stopHeartbeats()
    this.onRejoinNeeded?.(`${reason} (${where})`)
  }

  /** Whether to send a request again after `code`: after a pause, or a new coordinator lookup. */
  private async shouldRetry(code: number, attempt: number): Promise<boolean> {
    const error = errorName(code)
    if (attempt + 1 >= MAX_ATTEMPTS) return false
    if (COORDINATOR_MOVED.has(error)) this.dropCoordinator()
    else if (!TRY_AGAIN.has(error)) return false
    await backoff(attempt)
    return true
  }

  /** Sends a request to the coordinator in the highest common version. */
  private async send<Req, Res>(
    req: Message<Req>,
    res: Message<Res>,
    body: (version: number) => Encodable<Req>,
    timeoutMs?: number,
    maxVersion?: number,
  ): Promise<Res> {
    const conn = await this.coordinatorConnection()
    const version = conn.versions!.pick(req, res, maxVersion)
    return conn.request(req, res, version, body(version), timeoutMs !== undefined ? { timeoutMs } : {})
  }

  private async coordinatorConnection(): Promise<Connection> {
    if (this.conn?.isOpen) return this.conn
    this.conn = await this.openCoordinatorConnection()
    return this.conn
  }

  private async openCoordinatorConnection(): Promise<Connection> {
    if (!this.coordinator) this.coordinator = await this.findCoordinator()
    return connectNegotiated({
      host: this.coordinator.host,
      port: this.coordinator.port,
      clientId: this.client.clientId,
      requestTimeoutMs: this.client.requestTimeoutMs,
      ...(this.client.security ? { security: this.client.security } : {}),
    })
  }

  private dropCoordinator(): void {
    this.coordinator = undefined
    this.conn?.close()
    this.conn = undefined
  }

  /** FindCoordinator, retried while the coordinator is not available yet (__consumer_offsets being created). */
  private async findCoordinator(): Promise<{ host: string; port: number }> {
    for (let attempt = 0; ; attempt++) {
      const res = await this.client.request(FindCoordinatorRequest, FindCoordinatorResponse, (v) =>
        v >= 4 ? { keyType: 0, coordinatorKeys: [this.groupId] } : { key: this.groupId, keyType: 0 },
      )
      const c = res.coordinators?.[0] ?? {
        errorCode: res.errorCode,
        errorMessage: res.errorMessage ?? null,
        host: res.host,
        port: res.port,
      }
      if (c.errorCode === 0) return { host: c.host, port: c.port }
      const error = errorName(c.errorCode)
      if ((COORDINATOR_MOVED.has(error) || TRY_AGAIN.has(error)) && attempt + 1 < MAX_ATTEMPTS) {
        await backoff(attempt)
        continue
      }
      throwIfError(c.errorCode, `FindCoordinator ${this.groupId}`, c.errorMessage)
    }
  }
}

/** The key of committed()'s map. */
export const partitionKey = (topic: string, partition: number): string => `${topic}:${partition}`

/**
 * The topics of an OffsetCommit or TxnOffsetCommit request, by name, for offsets to commit
 * (each the next offset to read; no leader epoch, empty metadata), in first-seen topic order.
 */
export function offsetCommitTopics(offsets: readonly TopicPartitionOffset[]): Array<{
  name: string
  partitions: Array<{ partitionIndex: number; committedOffset: number; committedLeaderEpoch: number; committedMetadata: string }>
}> {
  const byTopic = new Map<string, TopicPartitionOffset[]>()
  for (const o of offsets) byTopic.set(o.topic, [...(byTopic.get(o.topic) ?? []), o])
  return [...byTopic].map(([name, list]) => ({
    name,
    partitions: list.map((o) => ({
      partitionIndex: o.partition,
      committedOffset: o.offset,
      committedLeaderEpoch: -1,
      committedMetadata: '',
    })),
  }))
}

function groupByTopic(partitions: readonly TopicPartition[]): Map<string, number[]> {
  const out = new Map<string, number[]>()
  for (const p of partitions) out.set(p.topic, [...(out.get(p.topic) ?? []), p.partition])
  return out
}

/** p, or a rejection with the signal's reason as soon as it aborts (p's outcome is then ignored). */
function abortable<T>(p: Promise<T>, signal: AbortSignal | undefined): Promise<T> {
  if (!signal) return p
  p.catch(() => {})
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(signal.reason)
    if (signal.aborted) return onAbort()
    signal.addEventListener('abort', onAbort, { once: true })
    p.then(resolve, reject).finally(() => signal.removeEventListener('abort', onAbort))
  })
}
