// The idempotent producers of one partition (Kafka's ProducerStateManager, ProducerStateEntry and
// ProducerAppendInfo): per producer id, its epoch and the metadata of its last 5 batches (first and
// last sequence, first and last offset, max timestamp). The partition log owns it and updates it on
// every append, a leader's and a follower's alike (storage/partition-log.ts), so a follower holds
// the same state as its leader and de-duplicates retries once it leads.
//
// Rules for a producer's (client's) batches, checked by prepare() in the log's serialized append,
// against the state including the earlier batches of the same append:
// - batches without a producer id (-1) are not looked at;
// - a batch whose epoch and sequence range equal one of the 5 retained batches of its producer is a
//   duplicate: the append answers with that batch's offsets and writes nothing (Kafka's
//   UnifiedLog.analyzeAndValidateProducerState, which checks against the appended state only);
// - an epoch below the producer's: INVALID_PRODUCER_EPOCH (Kafka ≥ 2.7, not PRODUCER_FENCED);
// - a higher epoch (KIP-360: the client bumped its own epoch) must start at sequence 0, else
//   OUT_OF_ORDER_SEQUENCE_NUMBER;
// - the same epoch: the first sequence must follow the last one (Int32 max wraps to 0), else
//   OUT_OF_ORDER_SEQUENCE_NUMBER;
// - a producer id without state (new, expired, or never seen by this replica) is accepted at any
//   sequence: since KIP-360 Kafka no longer answers UNKNOWN_PRODUCER_ID; only a transactions-v2
//   producer awaiting partition verification must start at 0, and there are no transactions here.
//   DUPLICATE_SEQUENCE_NUMBER is not answered by current brokers either (a retry outside the last 5
//   batches is out of order).
// A follower's batches (origin replication) are not checked: the leader did.
//
// Expiration (producer.id.expiration.ms): a producer whose last batch's timestamp is that old is
// forgotten, by the log manager's periodic check and when a snapshot is loaded. A producer whose
// batches fall below the log start stays (KIP-360: Kafka's onLogStartOffsetIncremented keeps them),
// so a retry after DeleteRecords or retention is still recognised.
//
// Control batches (transaction markers) are not produced here yet and leave the state alone.
import { KafkaError } from '../protocol/errors.js'
import type { BatchHeader } from '../protocol/records/batch.js'

/** Kafka's RecordBatch.NO_PRODUCER_ID, NO_PRODUCER_EPOCH, NO_SEQUENCE. */
export const NO_PRODUCER_ID = -1
export const NO_PRODUCER_EPOCH = -1
export const NO_SEQUENCE = -1
/** Kafka's ProducerStateEntry.NUM_BATCHES_TO_RETAIN: a producer has at most 5 requests in flight. */
export const BATCHES_TO_RETAIN = 5
const INT32_MAX = 0x7fffffff

/** One retained batch of a producer (Kafka's BatchMetadata). */
export interface BatchMetadata {
  lastSeq: number
  lastOffset: number
  /** lastOffset - firstOffset. */
  offsetDelta: number
  /** The batch's max timestamp. */
  timestamp: number
}

/** A producer's state (Kafka's ProducerStateEntry); batches oldest first, at most BATCHES_TO_RETAIN. */
export interface ProducerEntry {
  producerId: number
  epoch: number
  coordinatorEpoch: number
  lastTimestamp: number
  /** First offset of the producer's open transaction; -1: none. */
  currentTxnFirstOffset: number
  batches: BatchMetadata[]
}

/** The first sequence of a batch from its last one (Kafka's DefaultRecordBatch.decrementSequence). */
export function firstSeqOf(b: BatchMetadata): number {
  return b.lastSeq < b.offsetDelta ? INT32_MAX - (b.offsetDelta - b.lastSeq) + 1 : b.lastSeq - b.offsetDelta
}

export function firstOffsetOf(b: BatchMetadata): number {
  return b.lastOffset - b.offsetDelta
}

/** The last sequence of a batch (Kafka's DefaultRecordBatch.lastSequence: wraps at Int32 max). */
export function lastSequenceOf(h: BatchHeader): number {
  if (h.baseSequence === NO_SEQUENCE) return NO_SEQUENCE
  const inc = h.lastOffsetDelta
  return h.baseSequence > INT32_MAX - inc ? inc - (INT32_MAX - h.baseSequence) - 1 : h.baseSequence + inc
}

function inSequence(lastSeq: number, nextSeq: number): boolean {
  return nextSeq === lastSeq + 1 || (nextSeq === 0 && lastSeq === INT32_MAX)
}

function lastSeqOfEntry(e: ProducerEntry): number {
  const b = e.batches[e.batches.length - 1]
  return b ? b.lastSeq : NO_SEQUENCE
}

/** Adds a batch to an entry, as Kafka's ProducerStateEntry.addBatch (a new epoch drops the old batches). */
function addBatch(e: ProducerEntry, epoch: number, b: BatchMetadata): void {
  if (e.epoch !== epoch) {
    e.batches = []
    e.epoch = epoch
  }
  if (e.batches.length === BATCHES_TO_RETAIN) e.batches.shift()
  e.batches.push(b)
  e.lastTimestamp = b.timestamp
}

function metadataOf(h: BatchHeader): BatchMetadata {
  return {
    lastSeq: lastSequenceOf(h),
    lastOffset: h.baseOffset + h.lastOffsetDelta,
    offsetDelta: h.lastOffsetDelta,
    timestamp: h.maxTimestamp,
  }
}

/** What an append will change: per producer, the entry as it is after the append's batches. */
export type ProducerUpdates = Map<number, ProducerEntry>

/** The outcome of checking a client's batches: the updates to commit after the write, or a duplicate. */
export type PreparedAppend = { duplicate: BatchMetadata } | { duplicate: null; updates: ProducerUpdates | null }

export class ProducerStateManager {
  private readonly producers = new Map<number, ProducerEntry>()

  constructor(
    /** `<topic>-<partition>`, for messages. */
    private readonly partition: string,
    /** producer.id.expiration.ms. */
    readonly expirationMs: number,
  ) {}

  get size(): number {
    return this.producers.size
  }

  /** A copy of a producer's entry, or undefined. */
  entry(producerId: number): ProducerEntry | undefined {
    const e = this.producers.get(producerId)
    return e && copyEntry(e)
  }

  /** Copies of every entry, by producer id. */
  entries(): ProducerEntry[] {
    return [...this.producers.values()].map(copyEntry)
  }

  /**
   * Checks a client's batches (offsets assigned) against the state (see the header comment).
   * Throws the Kafka error of the first refused batch; nothing is changed until commit().
   */
  prepare(batches: readonly BatchHeader[]): PreparedAppend {
    let updates: ProducerUpdates | null = null
    for (const h of batches) {
      if (h.producerId === NO_PRODUCER_ID || h.isControl) continue
      const current = this.producers.get(h.producerId)
      if (current && current.epoch === h.producerEpoch) {
        const lastSeq = lastSequenceOf(h)
        const dup = current.batches.find((b) => b.lastSeq === lastSeq && firstSeqOf(b) === h.baseSequence)
        if (dup) return { duplicate: { ...dup } }
      }
      updates ??= new Map()
      let updated = updates.get(h.producerId)
      if (!updated) {
        // As Kafka's ProducerAppendInfo: the entry being built starts without batches.
        updated = current ? { ...copyEntry(current), batches: [] } : emptyEntry(h.producerId)
        updates.set(h.producerId, updated)
      }
      this.checkBatch(h, current, updated)
      addBatch(updated, h.producerEpoch, metadataOf(h))
    }
    return { duplicate: null, updates }
  }

  /** Kafka's ProducerAppendInfo.checkProducerEpoch and checkSequence, for a client's batch. */
  private checkBatch(h: BatchHeader, current: ProducerEntry | undefined, updated: ProducerEntry): void {
    const epoch = h.producerEpoch
    const firstSeq = h.baseSequence
    const at = `producer ${h.producerId} at offset ${h.baseOffset} in partition ${this.partition}`
    if (epoch < updated.epoch) {
      throw new KafkaError('INVALID_PRODUCER_EPOCH', `epoch of ${at} is ${epoch}, older than the last seen epoch ${updated.epoch}`)
    }
    if (epoch !== updated.epoch) {
      if (firstSeq !== 0 && updated.epoch !== NO_PRODUCER_EPOCH) {
        throw new KafkaError(
          'OUT_OF_ORDER_SEQUENCE_NUMBER',
          `invalid sequence number for the new epoch ${epoch} of ${at}: ${firstSeq} (must be 0; current epoch ${updated.epoch})`,
        )
      }
      return
    }
    const currentEpoch = current?.epoch ?? NO_PRODUCER_EPOCH
    let lastSeq = NO_SEQUENCE
    if (updated.batches.length > 0) lastSeq = lastSeqOfEntry(updated)
    else if (current && epoch === current.epoch) lastSeq = lastSeqOfEntry(current)
    // No epoch known (the producer's state is gone): any sequence is taken.
    if (currentEpoch !== NO_PRODUCER_EPOCH && !inSequence(lastSeq, firstSeq)) {
      throw new KafkaError(
        'OUT_OF_ORDER_SEQUENCE_NUMBER',
        `out of order sequence number for ${at}: ${firstSeq} (incoming), ${lastSeq} (current end sequence number)`,
      )
    }
  }

  /** Applies what prepare() returned, once the batches are written. */
  commit(updates: ProducerUpdates | null): void {
    if (updates === null) return
    for (const u of updates.values()) {
      const e = this.producers.get(u.producerId)
      if (!e) {
        this.producers.set(u.producerId, u)
        continue
      }
      // Kafka's ProducerStateEntry.update.
      if (e.epoch !== u.epoch) {
        e.batches = []
        e.epoch = u.epoch
      }
      for (const b of u.batches) {
        if (e.batches.length === BATCHES_TO_RETAIN) e.batches.shift()
        e.batches.push(b)
      }
      e.coordinatorEpoch = u.coordinatorEpoch
      e.currentTxnFirstOffset = u.currentTxnFirstOffset
      e.lastTimestamp = u.lastTimestamp
    }
  }

  /** A written batch taken as it is (a follower's append, recovery's replay): no check. */
  applyWritten(h: BatchHeader): void {
    if (h.producerId === NO_PRODUCER_ID || h.isControl) return
    let e = this.producers.get(h.producerId)
    if (!e) {
      e = emptyEntry(h.producerId)
      this.producers.set(h.producerId, e)
    }
    addBatch(e, h.producerEpoch, metadataOf(h))
  }

  /** Loads entries (from a snapshot), skipping the expired ones. */
  load(entries: readonly ProducerEntry[], nowMs: number): void {
    for (const e of entries) if (!this.isExpired(e, nowMs)) this.producers.set(e.producerId, copyEntry(e))
  }

  clear(): void {
    this.producers.clear()
  }

  private isExpired(e: ProducerEntry, nowMs: number): boolean {
    return e.currentTxnFirstOffset < 0 && nowMs - e.lastTimestamp >= this.expirationMs
  }

  /** Forgets the producers idle for producer.id.expiration.ms (Kafka's removeExpiredProducers); returns how many. */
  removeExpired(nowMs: number): number {
    let n = 0
    for (const [id, e] of this.producers) {
      if (this.isExpired(e, nowMs)) {
        this.producers.delete(id)
        n++
      }
    }
    return n
  }
}

function emptyEntry(producerId: number): ProducerEntry {
  return { producerId, epoch: NO_PRODUCER_EPOCH, coordinatorEpoch: -1, lastTimestamp: -1, currentTxnFirstOffset: -1, batches: [] }
}

function copyEntry(e: ProducerEntry): ProducerEntry {
  return { ...e, batches: e.batches.map((b) => ({ ...b })) }
}
