// The idempotent and transactional producers of one partition (Kafka's ProducerStateManager,
// ProducerStateEntry and ProducerAppendInfo): per producer id, its epoch, the metadata of its last 5
// batches (first and last sequence, first and last offset, max timestamp), the epoch of the last
// transaction coordinator that ended one of its transactions, and the first offset of its open
// transaction. The partition log owns it and updates it on every append, a leader's and a
// follower's alike (storage/partition-log.ts), so a follower holds the same state as its leader and
// de-duplicates retries once it leads.
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
//   sequence: since KIP-360 Kafka no longer answers UNKNOWN_PRODUCER_ID. DUPLICATE_SEQUENCE_NUMBER
//   is not answered by current brokers either (a retry outside the last 5 batches is out of order).
// The broker's own coordinators write batches with a producer id too (origin 'coordinator': the
// group coordinator's transactional offset commits, the transaction markers): their epoch is
// checked, their sequence (-1) and duplicates are not. A follower's batches (origin replication,
// applyWritten) are not checked: the leader did.
//
// Transactions (KIP-98): a transactional data batch of a producer without an open transaction
// opens one at its base offset (currentTxnFirstOffset; the ongoing transactions are kept ordered by
// that offset); a non-transactional batch while one is open is INVALID_TXN_STATE. A control batch
// (a transaction marker, protocol/records/control-record.ts) ends it, as Kafka's
// ProducerAppendInfo.appendEndTxnMarker: its epoch must not be older than the producer's
// (transactions v2, where the coordinator bumps the epoch for each marker: must be newer, except a
// retry of the marker of a transaction already ended) — INVALID_PRODUCER_EPOCH — and its coordinator
// epoch not older than the one last seen — TRANSACTION_COORDINATOR_FENCED; the entry then takes the
// marker's epochs, its open transaction ends and, when one was open, a CompletedTxn comes out. The
// log records the aborted ones in its transaction index (transaction-index.ts) with the last
// stable offset of the moment (completeTxn). A completed transaction stays unstable until the high
// watermark passes its marker (Kafka's unreplicatedTxns), so the first unstable offset is the first
// offset of the oldest transaction open or not yet replicated; the log's last stable offset is the
// lower of it and the high watermark.
//
// Verification (KIP-890, Kafka's VerificationStateEntry): before a transactional batch of a
// producer without a transaction open here at the batch's epoch is appended, the produce path asks
// the transaction coordinator (startVerification first). The verification entry recorded then
// holds the lowest sequence and the highest epoch seen while verifying, until a transactional batch
// or a marker of the producer is written: a client batch of that producer at a higher sequence is
// OUT_OF_ORDER_SEQUENCE_NUMBER, so a later batch already in flight cannot be written before an
// earlier one whose verification failed with a retriable error (the producer retries the later one
// once the earlier is in). From Produce v12 (transactions v2, where each transaction starts at
// sequence 0 of a new epoch) a batch under verification of a producer without retained batches
// must start at sequence 0. Entries older than producer.id.expiration.ms are dropped with the
// expired producers.
//
// Expiration (producer.id.expiration.ms): a producer whose last batch's timestamp is that old is
// forgotten, by the log manager's periodic check and when a snapshot is loaded — never one with an
// open transaction. A producer whose batches fall below the log start stays (KIP-360: Kafka's
// onLogStartOffsetIncremented keeps them), so a retry after DeleteRecords or retention is still
// recognised.
import { KafkaError } from '../protocol/errors.js'
import type { BatchHeader } from '../protocol/records/batch.js'
import { type EndTxnMarker, readMarker } from '../protocol/records/control-record.js'

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

/** A transaction ended by a marker (Kafka's CompletedTxn): its first offset and the marker's offset. */
export interface CompletedTxn {
  producerId: number
  firstOffset: number
  lastOffset: number
  isAborted: boolean
}

/** A transaction in the log: open (lastOffset -1) or completed but not yet below the high watermark. */
export interface TxnMetadata {
  producerId: number
  firstOffset: number
  lastOffset: number
}

/** A producer's verification in progress (Kafka's VerificationStateEntry): see the header. */
export interface VerificationEntry {
  /** When it was recorded (wall clock, ms). */
  timestamp: number
  lowestSequence: number
  epoch: number
  /** Recorded by a Produce v12+ (transactions v2) batch. */
  supportsEpochBump: boolean
}

/** Who writes an append's batches: a producer (all checks) or the broker's own coordinator (no sequence checks). */
export type AppendOrigin = 'client' | 'coordinator'

export interface PrepareOptions {
  origin?: AppendOrigin
  /** Of a transaction marker: 2 (transactions v2) requires an epoch above the producer's. */
  transactionVersion?: number
}

/** What an append will change: per producer, the entry as it is after the append's batches, and the transactions it begins and ends. */
export interface ProducerUpdates {
  entries: Map<number, ProducerEntry>
  /** Producers with a transactional batch or a marker in the append: their verification is over. */
  verified: Set<number>
  started: TxnMetadata[]
  completed: CompletedTxn[]
}

/** The outcome of checking a client's batches: the updates to commit after the write, or a duplicate. */
export type PreparedAppend = { duplicate: BatchMetadata } | { duplicate: null; updates: ProducerUpdates | null }

export class ProducerStateManager {
  private readonly producers = new Map<number, ProducerEntry>()
  /** Open transactions, by first offset. */
  private ongoing: TxnMetadata[] = []
  /** Completed transactions whose marker is not below the high watermark yet, by first offset. */
  private unreplicated: TxnMetadata[] = []
  /** Verifications in progress, by producer id. */
  private readonly verifications = new Map<number, VerificationEntry>()

  constructor(
    /** `<topic>-<partition>`, for messages. */
    private readonly partition: string,
    /** producer.id.expiration.ms. */
    readonly expirationMs: number,
  ) {}

  get size(): number {
    return this.producers.size
  }

  /** A new, empty state for the same partition and expiration (recovery's temporary one). */
  emptyCopy(): ProducerStateManager {
    return new ProducerStateManager(this.partition, this.expirationMs)
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
   * Checks an append's batches (offsets assigned; `records` is the buffer holding them, for the
   * markers' records) against the state (see the header comment). Throws the Kafka error of the
   * first refused batch; nothing is changed until commit().
   */
  prepare(batches: readonly BatchHeader[], records?: Buffer, opts: PrepareOptions = {}): PreparedAppend {
    const origin = opts.origin ?? 'client'
    let updates: ProducerUpdates | null = null
    for (const h of batches) {
      if (h.producerId === NO_PRODUCER_ID) continue
      const current = this.producers.get(h.producerId)
      if (origin === 'client' && !h.isControl && current && current.epoch === h.producerEpoch) {
        const lastSeq = lastSequenceOf(h)
        const dup = current.batches.find((b) => b.lastSeq === lastSeq && firstSeqOf(b) === h.baseSequence)
        if (dup) return { duplicate: { ...dup } }
      }
      updates ??= { entries: new Map(), verified: new Set(), started: [], completed: [] }
      let updated = updates.entries.get(h.producerId)
      if (!updated) {
        // As Kafka's ProducerAppendInfo: the entry being built starts without batches.
        updated = current ? { ...copyEntry(current), batches: [] } : emptyEntry(h.producerId)
        updates.entries.set(h.producerId, updated)
      }
      if (h.isControl) {
        updates.verified.add(h.producerId)
        const marker = readMarker(markerBuffer(records), h)
        if (marker === null) continue
        this.checkMarker(h, marker, updated, opts.transactionVersion ?? 0)
        const done = endTransaction(updated, h, marker)
        if (done) updates.completed.push(done)
        continue
      }
      this.checkEpoch(h, updated)
      if (origin === 'client') {
        // Once a transactional batch of the producer passed in this append, the next ones follow it.
        const verification = updates.verified.has(h.producerId) ? undefined : this.verifications.get(h.producerId)
        if (verification) this.checkVerification(h, current, verification)
        this.checkSequence(h, current, updated)
      }
      if (h.isTransactional) updates.verified.add(h.producerId)
      addBatch(updated, h.producerEpoch, metadataOf(h))
      if (updated.currentTxnFirstOffset >= 0 && !h.isTransactional) {
        throw new KafkaError(
          'INVALID_TXN_STATE',
          `expected a transactional write from producer ${h.producerId} at offset ${h.baseOffset} in partition ${this.partition}`,
        )
      }
      if (updated.currentTxnFirstOffset < 0 && h.isTransactional) {
        updated.currentTxnFirstOffset = h.baseOffset
        updates.started.push({ producerId: h.producerId, firstOffset: h.baseOffset, lastOffset: -1 })
      }
    }
    return { duplicate: null, updates }
  }

  /** Kafka's ProducerAppendInfo.checkProducerEpoch for a data batch. */
  private checkEpoch(h: BatchHeader, updated: ProducerEntry): void {
    if (h.producerEpoch < updated.epoch) {
      throw new KafkaError(
        'INVALID_PRODUCER_EPOCH',
        `epoch of producer ${h.producerId} at offset ${h.baseOffset} in partition ${this.partition} is ${h.producerEpoch}, older than the last seen epoch ${updated.epoch}`,
      )
    }
  }

  /** Kafka's checkProducerEpoch (by transaction version) and checkCoordinatorEpoch for a marker. */
  private checkMarker(h: BatchHeader, marker: EndTxnMarker, updated: ProducerEntry, transactionVersion: number): void {
    const at = `producer ${h.producerId} at offset ${h.baseOffset} in partition ${this.partition}`
    const current = updated.epoch
    const stale = transactionVersion >= 2 ? h.producerEpoch <= current : h.producerEpoch < current
    // Transactions v2: a marker again at the producer's epoch once its transaction ended is the
    // retry of one already written (the coordinator reloaded, or the answer was lost): it is taken.
    const retry = transactionVersion >= 2 && h.producerEpoch === current && updated.currentTxnFirstOffset < 0
    if (stale && !retry) {
      throw new KafkaError(
        'INVALID_PRODUCER_EPOCH',
        `epoch of the marker of ${at} is ${h.producerEpoch}, ${transactionVersion >= 2 ? 'not above' : 'older than'} the last seen epoch ${current}`,
      )
    }
    if (updated.coordinatorEpoch > marker.coordinatorEpoch) {
      throw new KafkaError(
        'TRANSACTION_COORDINATOR_FENCED',
        `invalid coordinator epoch for ${at}: ${marker.coordinatorEpoch} (zombie), ${updated.coordinatorEpoch} (current)`,
      )
    }
  }

  /** The verification's rules (see the header), before Kafka's checkSequence. */
  private checkVerification(h: BatchHeader, current: ProducerEntry | undefined, v: VerificationEntry): void {
    const at = `producer ${h.producerId} at offset ${h.baseOffset} in partition ${this.partition}`
    if (v.supportsEpochBump && h.baseSequence !== 0 && (!current || current.batches.length === 0)) {
      throw new KafkaError(
        'OUT_OF_ORDER_SEQUENCE_NUMBER',
        `invalid sequence number for ${at}: ${h.baseSequence} (incoming); a transactions v2 producer without state here must start at 0`,
      )
    }
    if (h.baseSequence > v.lowestSequence) {
      throw new KafkaError(
        'OUT_OF_ORDER_SEQUENCE_NUMBER',
        `out of order sequence number for ${at}: ${h.baseSequence} (incoming), ${v.lowestSequence} (earliest seen sequence)`,
      )
    }
  }

  /** Kafka's ProducerAppendInfo.checkSequence, for a client's batch. */
  private checkSequence(h: BatchHeader, current: ProducerEntry | undefined, updated: ProducerEntry): void {
    const epoch = h.producerEpoch
    const firstSeq = h.baseSequence
    const at = `producer ${h.producerId} at offset ${h.baseOffset} in partition ${this.partition}`
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

  /**
   * Applies what prepare() returned, once the batches are written: the entries and the transactions
   * begun. The transactions ended (updates.completed) are then completed one by one (completeTxn).
   */
  commit(updates: ProducerUpdates | null): void {
    if (updates === null) return
    for (const id of updates.verified) this.verifications.delete(id)
    for (const t of updates.started) insertByFirstOffset(this.ongoing, t)
    for (const u of updates.entries.values()) {
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

  /**
   * A written batch taken as it is (a follower's append, recovery's replay): no check. h.position
   * is within buf, which holds a control batch whole. Returns the transaction a marker ended, which
   * the caller then completes (completeTxn).
   */
  applyWritten(h: BatchHeader, buf?: Buffer): CompletedTxn | null {
    if (h.producerId === NO_PRODUCER_ID) return null
    if (h.isTransactional) this.verifications.delete(h.producerId)
    let e = this.producers.get(h.producerId)
    if (h.isControl) {
      const marker = readMarker(markerBuffer(buf), h)
      if (marker === null) return null
      if (!e) {
        e = emptyEntry(h.producerId)
        this.producers.set(h.producerId, e)
      }
      return endTransaction(e, h, marker)
    }
    if (!e) {
      e = emptyEntry(h.producerId)
      this.producers.set(h.producerId, e)
    }
    addBatch(e, h.producerEpoch, metadataOf(h))
    if (h.isTransactional && e.currentTxnFirstOffset < 0) {
      e.currentTxnFirstOffset = h.baseOffset
      insertByFirstOffset(this.ongoing, { producerId: h.producerId, firstOffset: h.baseOffset, lastOffset: -1 })
    }
    return null
  }

  /**
   * Completes a transaction a marker ended (Kafka's lastStableOffset(completedTxn) then
   * completeTxn): returns the last stable offset to record with it in the transaction index — the
   * first offset of the oldest transaction still open of another producer, else the offset after
   * the marker — and keeps it unstable until the high watermark passes the marker.
   */
  completeTxn(txn: CompletedTxn): number {
    const next = this.ongoing.find((t) => t.producerId !== txn.producerId)
    const lastStableOffset = next ? next.firstOffset : txn.lastOffset + 1
    const i = this.ongoing.findIndex((t) => t.firstOffset === txn.firstOffset)
    if (i >= 0) this.ongoing.splice(i, 1)
    insertByFirstOffset(this.unreplicated, { producerId: txn.producerId, firstOffset: txn.firstOffset, lastOffset: txn.lastOffset })
    return lastStableOffset
  }

  /** The high watermark moved: completed transactions whose marker is below it are stable (Kafka's onHighWatermarkUpdated). */
  onHighWatermarkUpdated(highWatermark: number): void {
    if (this.unreplicated.length > 0) this.unreplicated = this.unreplicated.filter((t) => t.lastOffset >= highWatermark)
  }

  /** The first offset of the oldest transaction open or not yet replicated; -1: none (Kafka's firstUnstableOffset). */
  firstUnstableOffset(): number {
    const a = this.ongoing[0]?.firstOffset ?? -1
    const b = this.unreplicated[0]?.firstOffset ?? -1
    if (a < 0) return b
    if (b < 0) return a
    return Math.min(a, b)
  }

  /** The open transactions, oldest first (copies). */
  ongoingTransactions(): TxnMetadata[] {
    return this.ongoing.map((t) => ({ ...t }))
  }

  /**
   * The producer has a transaction open in this log — at that epoch when one is given (Kafka's
   * UnifiedLog.hasOngoingTransaction: one of an older epoch may be over already).
   */
  hasOngoingTransaction(producerId: number, producerEpoch?: number): boolean {
    const e = this.producers.get(producerId)
    if (!e || e.currentTxnFirstOffset < 0) return false
    return producerEpoch === undefined || e.epoch === producerEpoch
  }

  /**
   * Before a transactional batch is verified with the coordinator (Kafka's
   * maybeStartTransactionVerification): INVALID_PRODUCER_EPOCH when its epoch is below the
   * producer's; false when the producer's transaction of that epoch is open here already (nothing
   * to verify); else the verification entry is recorded or updated (the lowest sequence of the
   * epoch, a higher epoch resets it) and true is returned.
   */
  startVerification(producerId: number, sequence: number, epoch: number, supportsEpochBump: boolean, nowMs: number): boolean {
    const e = this.producers.get(producerId)
    if (e && epoch < e.epoch) {
      throw new KafkaError(
        'INVALID_PRODUCER_EPOCH',
        `epoch of producer ${producerId} is ${epoch}, older than the last seen epoch ${e.epoch} in partition ${this.partition}`,
      )
    }
    if (this.hasOngoingTransaction(producerId, epoch)) return false
    const v = this.verifications.get(producerId)
    if (!v) {
      this.verifications.set(producerId, { timestamp: nowMs, lowestSequence: sequence, epoch, supportsEpochBump })
    } else if (epoch > v.epoch) {
      v.epoch = epoch
      v.lowestSequence = sequence
    } else if (epoch === v.epoch && sequence < v.lowestSequence) {
      v.lowestSequence = sequence
    }
    return true
  }

  /** A copy of the producer's verification in progress, or undefined. */
  verification(producerId: number): VerificationEntry | undefined {
    const v = this.verifications.get(producerId)
    return v && { ...v }
  }

  /** Loads entries (from a snapshot), skipping the expired ones; their open transactions become ongoing. */
  load(entries: readonly ProducerEntry[], nowMs: number): void {
    for (const e of entries) {
      if (this.isExpired(e, nowMs)) continue
      this.producers.set(e.producerId, copyEntry(e))
      if (e.currentTxnFirstOffset >= 0) {
        insertByFirstOffset(this.ongoing, { producerId: e.producerId, firstOffset: e.currentTxnFirstOffset, lastOffset: -1 })
      }
    }
  }

  clear(): void {
    this.producers.clear()
    this.verifications.clear()
    this.ongoing = []
    this.unreplicated = []
  }

  private isExpired(e: ProducerEntry, nowMs: number): boolean {
    return e.currentTxnFirstOffset < 0 && nowMs - e.lastTimestamp >= this.expirationMs
  }

  /**
   * Forgets the producers idle for producer.id.expiration.ms (Kafka's removeExpiredProducers), and
   * the verifications recorded that long ago; returns how many producers.
   */
  removeExpired(nowMs: number): number {
    for (const [id, v] of this.verifications) if (nowMs - v.timestamp >= this.expirationMs) this.verifications.delete(id)
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

/**
 * A marker ends the entry's open transaction (Kafka's appendEndTxnMarker then
 * ProducerStateEntry.update): the entry takes the marker's epoch (a new one drops the batches),
 * coordinator epoch and timestamp. Returns the transaction ended, null when none was open.
 */
function endTransaction(e: ProducerEntry, h: BatchHeader, marker: EndTxnMarker): CompletedTxn | null {
  const done =
    e.currentTxnFirstOffset >= 0
      ? { producerId: h.producerId, firstOffset: e.currentTxnFirstOffset, lastOffset: h.baseOffset, isAborted: !marker.commit }
      : null
  if (e.epoch !== h.producerEpoch) {
    e.batches = []
    e.epoch = h.producerEpoch
  }
  e.coordinatorEpoch = marker.coordinatorEpoch
  e.lastTimestamp = h.maxTimestamp
  e.currentTxnFirstOffset = -1
  return done
}

function markerBuffer(buf: Buffer | undefined): Buffer {
  if (!buf) throw new RangeError('a control batch needs the buffer holding its record')
  return buf
}

/** Inserts t into list, kept ordered by first offset. */
function insertByFirstOffset(list: TxnMetadata[], t: TxnMetadata): void {
  let i = list.length
  while (i > 0 && list[i - 1]!.firstOffset > t.firstOffset) i--
  list.splice(i, 0, t)
}

function emptyEntry(producerId: number): ProducerEntry {
  return { producerId, epoch: NO_PRODUCER_EPOCH, coordinatorEpoch: -1, lastTimestamp: -1, currentTxnFirstOffset: -1, batches: [] }
}

function copyEntry(e: ProducerEntry): ProducerEntry {
  return { ...e, batches: e.batches.map((b) => ({ ...b })) }
}
