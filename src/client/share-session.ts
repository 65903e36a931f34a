// One share session (KIP-932) between a share-group member and one broker, as Kafka's consumer
// keeps it (ShareSessionHandler): which partitions the broker fetches for the member, and the
// epoch the next request must carry.
//
// Epochs: 0 opens a session (the request lists every partition); each answer moves the epoch on
// by one (after Integer.MAX_VALUE it wraps to 1, never back to 0); -1 closes the session (the
// broker then releases what the member still holds there). A request in a session lists only what
// changed: partitions added (and any partition carrying acknowledgements), with the partitions no
// longer wanted in forgottenTopicsData. SHARE_SESSION_NOT_FOUND or INVALID_SHARE_SESSION_EPOCH in
// an answer, or a request that got no answer, means the broker's view is unknown: the next
// request opens a new session with epoch 0.
//
// Acknowledgements never ride in a request with epoch 0 — Kafka refuses them there, and a
// ShareAcknowledge cannot open a session — so a caller keeps them for the next request.
import { ErrorCode } from '../protocol/errors.js'
import type { AcknowledgementBatch } from './share-acks.js'

/** A partition by topic id, as share requests name them. */
export interface SharePartitionId {
  topicId: string
  partition: number
}

export const sharePartitionKey = (p: SharePartitionId): string => `${p.topicId}:${p.partition}`

export const INITIAL_EPOCH = 0
export const FINAL_EPOCH = -1
const MAX_EPOCH = 0x7fffffff

export interface ShareRequestTopics {
  topics: Array<{
    topicId: string
    partitions: Array<{ partitionIndex: number; partitionMaxBytes: number; acknowledgementBatches: AcknowledgementBatch[] }>
  }>
  forgottenTopicsData: Array<{ topicId: string; partitions: number[] }>
}

const SESSION_ERRORS: ReadonlySet<number> = new Set([ErrorCode.SHARE_SESSION_NOT_FOUND.code, ErrorCode.INVALID_SHARE_SESSION_EPOCH.code])

export class ShareSession {
  private nextEpoch = INITIAL_EPOCH
  /** The partitions the broker has in the session (as of the last request sent). */
  private readonly inSession = new Map<string, SharePartitionId>()
  private closed = false

  constructor(readonly nodeId: number) {}

  /** The epoch the next request carries. */
  get epoch(): number {
    return this.closed ? FINAL_EPOCH : this.nextEpoch
  }

  /** Whether the broker holds a session for the member (a ShareAcknowledge can be sent). */
  get open(): boolean {
    return !this.closed && this.nextEpoch !== INITIAL_EPOCH
  }

  get partitions(): SharePartitionId[] {
    return [...this.inSession.values()]
  }

  /**
   * The topics of the next ShareFetch: `wanted` is every partition the member fetches from this
   * broker; `acks` the batches per partition key to send (ignored at epoch 0: keep them).
   */
  fetchTopics(wanted: readonly SharePartitionId[], acks: ReadonlyMap<string, AcknowledgementBatch[]>): ShareRequestTopics {
    const fresh = this.nextEpoch === INITIAL_EPOCH
    const wantedKeys = new Map(wanted.map((p) => [sharePartitionKey(p), p]))
    const listed = new Map<string, { p: SharePartitionId; batches: AcknowledgementBatch[] }>()
    const forgotten: SharePartitionId[] = []
    if (fresh) this.inSession.clear()
    else {
      for (const [key, p] of this.inSession) {
        if (!wantedKeys.has(key)) {
          forgotten.push(p)
          this.inSession.delete(key)
        }
      }
    }
    for (const [key, p] of wantedKeys) {
      if (fresh || !this.inSession.has(key)) listed.set(key, { p, batches: [] })
      this.inSession.set(key, p)
    }
    if (!fresh) {
      for (const [key, batches] of acks) {
        if (batches.length === 0) continue
        const p = this.inSession.get(key) ?? parseKey(key)
        const entry = listed.get(key) ?? { p, batches: [] }
        entry.batches = batches
        listed.set(key, entry)
      }
    }
    return {
      topics: byTopic(
        [...listed.values()].map(({ p, batches }) => ({
          p,
          value: { partitionIndex: p.partition, partitionMaxBytes: 0, acknowledgementBatches: batches },
        })),
      ),
      forgottenTopicsData: byTopic(forgotten.map((p) => ({ p, value: p.partition }))).map((t) => ({
        topicId: t.topicId,
        partitions: t.partitions,
      })),
    }
  }

  /** The topics of a ShareAcknowledge (sent only when `open`, or to close). */
  acknowledgeTopics(
    acks: ReadonlyMap<string, AcknowledgementBatch[]>,
  ): Array<{ topicId: string; partitions: Array<{ partitionIndex: number; acknowledgementBatches: AcknowledgementBatch[] }> }> {
    return byTopic(
      [...acks]
        .filter(([, batches]) => batches.length > 0)
        .map(([key, batches]) => {
          const p = this.inSession.get(key) ?? parseKey(key)
          return { p, value: { partitionIndex: p.partition, acknowledgementBatches: batches } }
        }),
    )
  }

  /** The next request closes the session (epoch -1). */
  markClosing(): void {
    this.closed = true
  }

  /** After an answer with this top-level error code (0 for none). Returns false for a session error. */
  answered(errorCode: number): boolean {
    if (this.closed) return true
    if (SESSION_ERRORS.has(errorCode)) {
      this.reset()
      return false
    }
    this.nextEpoch = this.nextEpoch >= MAX_EPOCH ? 1 : this.nextEpoch + 1
    return true
  }

  /** The request got no answer (connection lost, timeout): start over with a new session. */
  reset(): void {
    this.nextEpoch = INITIAL_EPOCH
    this.inSession.clear()
  }
}

function parseKey(key: string): SharePartitionId {
  const i = key.lastIndexOf(':')
  return { topicId: key.slice(0, i), partition: Number(key.slice(i + 1)) }
}

function byTopic<V>(items: Array<{ p: SharePartitionId; value: V }>): Array<{ topicId: string; partitions: V[] }> {
  const out = new Map<string, V[]>()
  for (const { p, value } of items) {
    const list = out.get(p.topicId) ?? []
    list.push(value)
    out.set(p.topicId, list)
  }
  return [...out].map(([topicId, partitions]) => ({ topicId, partitions }))
}
