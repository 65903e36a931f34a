// An in-memory ShareStatePersister (ports/shares.ts): the share-partition states a share
// coordinator would keep in `__share_group_state`, held in this process only, for the
// share-partition tests (its `failNext` makes the next writes fail with a given error code, as a
// share coordinator that lost its partition would). The broker always uses the share coordinator's
// persister (src/coordinator/share/persister.ts).
//
// Semantics kept from Kafka's share coordinator (ShareCoordinatorShard): a write whose leader epoch
// is older than the stored one is FENCED_LEADER_EPOCH, one with an older state epoch
// FENCED_STATE_EPOCH, a negative epoch INVALID_REQUEST; the batches of a write replace the stored state of their offsets, and the
// state below the start offset is dropped; reading a share-partition never initialized answers
// start offset -1. Bounded: one entry per offset in flight (the writers' window), and at most
// maxStates share-partitions — group ids are the clients' to choose, so past that a new
// share-partition is refused with COORDINATOR_NOT_AVAILABLE rather than held.
import { ErrorCode } from '../../src/protocol/errors.js'
import {
  type SharePartitionKey,
  sharePartitionKeyString,
  type ShareStateBatch,
  type ShareStatePersister,
  type ShareStateRead,
  type ShareStateResult,
  type ShareStateSummary,
  type ShareStateWrite,
} from '../../src/ports/shares.js'

interface Stored {
  stateEpoch: number
  leaderEpoch: number
  startOffset: number
  deliveryCompleteCount: number
  /** offset → [state, delivery count] */
  offsets: Map<number, [number, number]>
}

const OK: ShareStateResult = { errorCode: 0, errorMessage: null }
/** A bound of Tributary's own on the share-partitions held in memory. */
export const DEFAULT_MAX_STATES = 100_000

export class MemorySharePersister implements ShareStatePersister {
  constructor(private readonly maxStates = DEFAULT_MAX_STATES) {}

  private readonly states = new Map<string, Stored>()
  private failures: number[] = []
  /** Every write, in order (tests look at what was made durable). */
  readonly writes: Array<{ key: SharePartitionKey; write: ShareStateWrite }> = []

  /** The next `count` writes answer errorCode. */
  failNext(errorCode: number, count = 1): void {
    for (let i = 0; i < count; i++) this.failures.push(errorCode)
  }

  async initialize(key: SharePartitionKey, stateEpoch: number, startOffset: number): Promise<ShareStateResult> {
    if (stateEpoch < 0) return invalid()
    const k = sharePartitionKeyString(key)
    const cur = this.states.get(k)
    if (cur && stateEpoch < cur.stateEpoch) return { errorCode: ErrorCode.FENCED_STATE_EPOCH.code, errorMessage: null }
    if (!cur && this.states.size >= this.maxStates) return full()
    this.states.set(k, { stateEpoch, leaderEpoch: cur?.leaderEpoch ?? -1, startOffset, deliveryCompleteCount: 0, offsets: new Map() })
    return OK
  }

  async read(key: SharePartitionKey, leaderEpoch: number): Promise<ShareStateRead> {
    if (leaderEpoch < 0) return { ...invalid(), stateEpoch: 0, startOffset: -1, stateBatches: [] }
    const cur = this.states.get(sharePartitionKeyString(key))
    if (!cur) return { errorCode: 0, errorMessage: null, stateEpoch: 0, startOffset: -1, stateBatches: [] }
    if (leaderEpoch < cur.leaderEpoch) return { ...fenced(), stateEpoch: cur.stateEpoch, startOffset: -1, stateBatches: [] }
    cur.leaderEpoch = Math.max(cur.leaderEpoch, leaderEpoch)
    return { errorCode: 0, errorMessage: null, stateEpoch: cur.stateEpoch, startOffset: cur.startOffset, stateBatches: runsOf(cur.offsets) }
  }

  async write(key: SharePartitionKey, w: ShareStateWrite): Promise<ShareStateResult> {
    this.writes.push({ key, write: structuredClone(w) })
    const failure = this.failures.shift()
    if (failure !== undefined) return { errorCode: failure, errorMessage: null }
    if (w.leaderEpoch < 0 || w.stateEpoch < 0) return invalid()
    const k = sharePartitionKeyString(key)
    let cur = this.states.get(k)
    if (cur && w.leaderEpoch < cur.leaderEpoch) return fenced()
    if (cur && w.stateEpoch < cur.stateEpoch) return { errorCode: ErrorCode.FENCED_STATE_EPOCH.code, errorMessage: null }
    if (!cur) {
      if (this.states.size >= this.maxStates) return full()
      cur = {
        stateEpoch: w.stateEpoch,
        leaderEpoch: w.leaderEpoch,
        startOffset: w.startOffset,
        deliveryCompleteCount: 0,
        offsets: new Map(),
      }
      this.states.set(k, cur)
    }
    cur.leaderEpoch = w.leaderEpoch
    if (w.startOffset >= 0) cur.startOffset = w.startOffset
    cur.deliveryCompleteCount = w.deliveryCompleteCount
    for (const b of w.stateBatches) {
      for (let off = Math.max(b.firstOffset, cur.startOffset); off <= b.lastOffset; off++)
        cur.offsets.set(off, [b.deliveryState, b.deliveryCount])
    }
    for (const off of cur.offsets.keys()) if (off < cur.startOffset) cur.offsets.delete(off)
    return OK
  }

  async delete(key: SharePartitionKey): Promise<ShareStateResult> {
    this.states.delete(sharePartitionKeyString(key))
    return OK
  }

  async readSummary(key: SharePartitionKey, leaderEpoch: number): Promise<ShareStateSummary> {
    const cur = this.states.get(sharePartitionKeyString(key))
    if (!cur) return { errorCode: 0, errorMessage: null, stateEpoch: 0, leaderEpoch: -1, startOffset: -1, deliveryCompleteCount: -1 }
    if (leaderEpoch < cur.leaderEpoch)
      return { ...fenced(), stateEpoch: cur.stateEpoch, leaderEpoch: cur.leaderEpoch, startOffset: -1, deliveryCompleteCount: -1 }
    return {
      errorCode: 0,
      errorMessage: null,
      stateEpoch: cur.stateEpoch,
      leaderEpoch: cur.leaderEpoch,
      startOffset: cur.startOffset,
      deliveryCompleteCount: cur.deliveryCompleteCount,
    }
  }
}

function full(): ShareStateResult {
  return { errorCode: ErrorCode.COORDINATOR_NOT_AVAILABLE.code, errorMessage: 'too many share-partitions held in memory' }
}

function invalid(): ShareStateResult {
  return { errorCode: ErrorCode.INVALID_REQUEST.code, errorMessage: 'negative epoch' }
}

function fenced(): ShareStateResult {
  return { errorCode: ErrorCode.FENCED_LEADER_EPOCH.code, errorMessage: null }
}

function runsOf(offsets: Map<number, [number, number]>): ShareStateBatch[] {
  const out: ShareStateBatch[] = []
  for (const off of [...offsets.keys()].sort((a, b) => a - b)) {
    const [state, count] = offsets.get(off)!
    const last = out[out.length - 1]
    if (last && last.lastOffset === off - 1 && last.deliveryState === state && last.deliveryCount === count) last.lastOffset = off
    else out.push({ firstOffset: off, lastOffset: off, deliveryState: state, deliveryCount: count })
  }
  return out
}
