// Membership of a share group (KIP-932) through ShareGroupHeartbeat (76) v1, as Kafka's share
// consumer keeps it (ShareHeartbeatRequestManager, ShareMembershipManager).
//
// - The member id is the client's own: a random Kafka Uuid, generated once and kept across
//   re-joins (v1 refuses an empty one).
// - Joining is a heartbeat with epoch 0 and the subscribed topic names; the coordinator (found with
//   FindCoordinator key type 0, as for any group) answers the member's epoch and the heartbeat
//   interval (group.share.heartbeat.interval.ms). Later heartbeats carry the epoch last answered
//   and leave the topic names null unless the subscription changed. Leaving is epoch -1.
// - An answer with a non-null assignment replaces the member's partitions at once — share groups
//   have no revocation, many members may share a partition — and the next heartbeat goes at once
//   (as Kafka's consumer acknowledges a new assignment) rather than an interval later.
// - UNKNOWN_MEMBER_ID or FENCED_MEMBER_EPOCH: the coordinator dropped the member (it missed its
//   session timeout, say). The partitions are gone; the member joins again with epoch 0 and the
//   same id. NOT_COORDINATOR, COORDINATOR_NOT_AVAILABLE and COORDINATOR_LOAD_IN_PROGRESS: find the
//   coordinator again and retry after a backoff; a lost connection likewise. Any other error
//   (GROUP_AUTHORIZATION_FAILED, GROUP_MAX_SIZE_REACHED, UNSUPPORTED_VERSION, INVALID_REQUEST, a
//   topic the member may not describe, …) is fatal: it is kept in `failure` for the consumer to
//   throw from its next poll.
//
// The assignment comes by topic id; names come from Metadata (v10+ carries topic ids) for the
// subscribed topics, fetched again when an id is not known yet (a topic just created).
import { randomBytes } from 'node:crypto'
import type { ErrorName } from '../protocol/errors.js'
import { ShareGroupHeartbeatRequest, ShareGroupHeartbeatResponse } from '../protocol/messages/76-share-group-heartbeat.js'
import { uuidFromBytes } from '../protocol/primitives/uuid.js'
import { findCoordinator } from './admin-groups.js'
import type { KafkaClient } from './client.js'
import { ClientError, errorName } from './errors.js'

/** An assigned partition, by name and by id. */
export interface AssignedPartition {
  topic: string
  topicId: string
  partition: number
}

export interface ShareMembershipOptions {
  client: KafkaClient
  groupId: string
  rackId?: string | null
  /** Told of every new assignment (the full list). */
  onAssignment?: (partitions: AssignedPartition[]) => void
  /** Told when the member was fenced and joins again. */
  onRejoin?: (reason: ErrorName) => void
}

const REJOIN: ReadonlySet<ErrorName> = new Set(['UNKNOWN_MEMBER_ID', 'FENCED_MEMBER_EPOCH'])
const FIND_AGAIN: ReadonlySet<ErrorName> = new Set(['NOT_COORDINATOR', 'COORDINATOR_NOT_AVAILABLE', 'COORDINATOR_LOAD_IN_PROGRESS'])
const RETRY_BACKOFF_MS = 100
const RETRY_BACKOFF_MAX_MS = 1000
/** Until the first answer gives the group's interval (Kafka's default is 5000). */
const DEFAULT_INTERVAL_MS = 5000

/** A new Kafka Uuid in its text form (base64url, 22 characters), never the zero or reserved ones. */
export function newMemberId(): string {
  for (;;) {
    const id = uuidFromBytes(randomBytes(16))
    if (!id.startsWith('AAAAAAAAAAAAAAAAAAAAA') && !id.startsWith('-')) return id
  }
}

export class ShareMembership {
  readonly memberId = newMemberId()
  readonly groupId: string
  /** The epoch the coordinator last answered; 0 before joining, -1 once left. */
  memberEpoch = 0
  heartbeatIntervalMs = DEFAULT_INTERVAL_MS
  /** The partitions this member may fetch, as the coordinator last said. */
  assignment: AssignedPartition[] = []
  /** A fatal error from the coordinator; the member stopped heartbeating. */
  failure: ClientError | null = null
  private readonly client: KafkaClient
  private readonly rackId: string | null
  private readonly opts: ShareMembershipOptions
  private topics: string[] = []
  /** The subscription as the coordinator last took it (null: not yet). */
  private topicsSent: string | null = null
  private coordinator: number | null = null
  private timer: NodeJS.Timeout | undefined
  private inFlight: Promise<void> | null = null
  private failures = 0
  private stopped = false
  private readonly waiters: Array<() => void> = []

  constructor(opts: ShareMembershipOptions) {
    this.opts = opts
    this.client = opts.client
    this.groupId = opts.groupId
    this.rackId = opts.rackId ?? null
  }

  /** Subscribes (or changes the subscription) and heartbeats from now on; resolves after the first answer. */
  async subscribe(topics: readonly string[]): Promise<void> {
    this.topics = [...new Set(topics)].sort()
    this.stopped = false
    await this.beat()
    // A heartbeat already in flight carried the old subscription: send the new one now.
    if (!this.failure && this.topicsSent !== this.topics.join(',')) await this.beat()
    if (this.failure) throw this.failure
  }

  /** Resolves on the next assignment change or failure, or after timeoutMs. */
  waitForChange(timeoutMs: number): Promise<void> {
    return new Promise((resolve) => {
      const timer = setTimeout(done, timeoutMs)
      function done() {
        clearTimeout(timer)
        resolve()
      }
      this.waiters.push(done)
    })
  }

  /** Stops heartbeating and leaves the group (epoch -1); errors are the caller's to report. */
  async leave(): Promise<void> {
    this.stopped = true
    clearTimeout(this.timer)
    await this.inFlight?.catch(() => {})
    const epoch = this.memberEpoch
    this.memberEpoch = -1
    this.assignment = [] // not announced: the member is going away, not being reassigned
    this.wake()
    // Only a member the coordinator knows (an epoch it answered) has anything to leave.
    if (epoch <= 0 || this.failure) return
    const nodeId = this.coordinator ?? (await findCoordinator(this.client, this.groupId))
    await this.client.request(
      ShareGroupHeartbeatRequest,
      ShareGroupHeartbeatResponse,
      { groupId: this.groupId, memberId: this.memberId, memberEpoch: -1, rackId: null, subscribedTopicNames: null },
      { nodeId },
    )
  }

  /** Stops heartbeating without telling the coordinator. */
  stop(): void {
    this.stopped = true
    clearTimeout(this.timer)
  }

  private schedule(delayMs: number): void {
    clearTimeout(this.timer)
    if (this.stopped || this.failure) return
    this.timer = setTimeout(() => void this.beat(), delayMs)
    this.timer.unref?.()
  }

  private beat(): Promise<void> {
    if (this.inFlight) return this.inFlight
    const p = this.beatOnce().finally(() => {
      this.inFlight = null
    })
    this.inFlight = p
    return p
  }

  private async beatOnce(): Promise<void> {
    if (this.stopped || this.failure) return
    let next = this.heartbeatIntervalMs
    try {
      this.coordinator ??= await findCoordinator(this.client, this.groupId)
      const topics = this.topics
      const sendTopics = this.topicsSent !== topics.join(',') || this.memberEpoch === 0
      const res = await this.client.request(
        ShareGroupHeartbeatRequest,
        ShareGroupHeartbeatResponse,
        {
          groupId: this.groupId,
          memberId: this.memberId,
          memberEpoch: this.memberEpoch,
          rackId: this.memberEpoch === 0 ? this.rackId : null,
          subscribedTopicNames: sendTopics ? topics : null,
        },
        { nodeId: this.coordinator },
      )
      if (this.stopped) return
      if (res.errorCode !== 0) {
        const name = errorName(res.errorCode)
        if (REJOIN.has(name)) {
          this.memberEpoch = 0
          this.setAssignment([])
          this.opts.onRejoin?.(name)
          next = 0
        } else if (FIND_AGAIN.has(name)) {
          this.coordinator = null
          next = this.backoff()
        } else {
          this.failure = new ClientError(name, `ShareGroupHeartbeat ${this.groupId}${res.errorMessage ? `: ${res.errorMessage}` : ''}`)
          this.wake()
        }
        return
      }
      this.failures = 0
      if (sendTopics) this.topicsSent = topics.join(',')
      this.memberEpoch = res.memberEpoch
      if (res.heartbeatIntervalMs > 0) this.heartbeatIntervalMs = res.heartbeatIntervalMs
      next = this.heartbeatIntervalMs
      if (res.assignment !== null) {
        this.setAssignment(await this.named(res.assignment.topicPartitions))
        next = 0 // acknowledge the new assignment with a heartbeat now
      }
    } catch (err) {
      if (!(err instanceof ClientError)) throw err
      if (!err.retriable && !FIND_AGAIN.has(err.code) && err.code !== 'NETWORK_EXCEPTION' && err.code !== 'REQUEST_TIMED_OUT') {
        this.failure = err
        this.wake()
        return
      }
      this.coordinator = null
      next = this.backoff()
    } finally {
      this.schedule(next)
    }
  }

  private backoff(): number {
    this.failures++
    return Math.min(RETRY_BACKOFF_MAX_MS, RETRY_BACKOFF_MS * 2 ** (this.failures - 1))
  }

  private setAssignment(list: AssignedPartition[]): void {
    list.sort((a, b) => (a.topic === b.topic ? a.partition - b.partition : a.topic < b.topic ? -1 : 1))
    this.assignment = list
    this.opts.onAssignment?.(list)
    this.wake()
  }

  private wake(): void {
    for (const w of this.waiters.splice(0)) w()
  }

  /** Topic names for the ids of an assignment; ids still unknown after a refresh are left out. */
  private async named(topicPartitions: Array<{ topicId: string; partitions: number[] }>): Promise<AssignedPartition[]> {
    const lookup = async (refresh: boolean) => {
      const md = await this.client.metadata(this.topics, { refresh })
      const names = new Map<string, string>()
      for (const t of md.topics.values()) names.set(t.topicId, t.name)
      return names
    }
    let names = await lookup(false)
    if (topicPartitions.some((t) => !names.has(t.topicId))) names = await lookup(true)
    const out: AssignedPartition[] = []
    for (const t of topicPartitions) {
      const topic = names.get(t.topicId)
      if (topic === undefined) continue
      for (const partition of t.partitions) out.push({ topic, topicId: t.topicId, partition })
    }
    return out
  }
}
