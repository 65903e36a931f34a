// The transactions a cleaning walks through (Kafka's CleanedTransactionMetadata): which batches
// belong to aborted transactions — dropped whatever their keys — and when a marker may go.
//
// The aborted transactions of the section being read come from the log's transaction indexes
// (PartitionLog.collectAbortedTransactions), ordered by first offset; each becomes "ongoing" for
// its producer once the walk reaches its first offset. Then, batch by batch in offset order:
// - a transactional data batch of a producer with an ongoing aborted transaction is aborted (it
//   may be discarded); one of another producer belongs to a committed transaction in progress;
// - an ABORT marker ends its producer's aborted transaction: when batches of it were seen in this
//   walk, the marker is kept and the transaction goes into the cleaned segment's index (its
//   records are being removed only now, and a consumer that read them before must still be told);
//   otherwise the marker may be discarded;
// - a COMMIT marker may be discarded when no batch of its transaction was seen;
// - an emptied control batch may be discarded.
// "May be discarded" is not "is discarded": the cleaner keeps such a marker until
// delete.retention.ms after the cleaning that found it removable (cleaner.ts).
import type { BatchHeader } from '../../protocol/records/batch.js'
import { readMarker } from '../../protocol/records/control-record.js'
import type { AbortedTxn, TransactionIndex } from '../transaction-index.js'

export class CleanedTransactions {
  /** Aborted transactions not reached yet, by first offset. */
  private pending: AbortedTxn[] = []
  /** Per producer: its aborted transaction reached, and the last offset of a batch of it seen (-1: none). */
  private readonly ongoingAborted = new Map<number, { txn: AbortedTxn; lastBatchOffset: number }>()
  /** Producers with a committed (not aborted) transaction whose batches were seen. */
  private readonly ongoingCommitted = new Set<number>()
  /** Transactions added already (a transaction spanning segments is collected for each). */
  private readonly known = new Set<string>()
  /** Where the aborted transactions whose markers are kept are recorded: the cleaned segment's index. */
  cleanedIndex: TransactionIndex | null = null

  addAborted(txns: readonly AbortedTxn[]): void {
    const fresh = txns.filter((t) => {
      const key = `${t.producerId}:${t.firstOffset}`
      if (this.known.has(key)) return false
      this.known.add(key)
      return true
    })
    if (fresh.length > 0) this.pending = [...this.pending, ...fresh].sort((a, b) => a.firstOffset - b.firstOffset)
  }

  private reach(offset: number): void {
    while (this.pending.length > 0 && this.pending[0]!.firstOffset <= offset) {
      const txn = this.pending.shift()!
      if (!this.ongoingAborted.has(txn.producerId)) this.ongoingAborted.set(txn.producerId, { txn, lastBatchOffset: -1 })
    }
  }

  /** A data batch: true when it belongs to an aborted transaction. */
  onDataBatch(h: BatchHeader): boolean {
    const last = h.baseOffset + h.lastOffsetDelta
    this.reach(last)
    if (!h.isTransactional) return false
    const aborted = this.ongoingAborted.get(h.producerId)
    if (aborted) {
      aborted.lastBatchOffset = last
      return true
    }
    this.ongoingCommitted.add(h.producerId)
    return false
  }

  /** A control batch (whole in buf): true when it may be discarded. */
  onControlBatch(h: BatchHeader, buf: Buffer): boolean {
    this.reach(h.baseOffset + h.lastOffsetDelta)
    const marker = readMarker(buf, h)
    if (marker === null) return h.recordCount === 0
    if (marker.commit) return !this.ongoingCommitted.delete(h.producerId)
    const aborted = this.ongoingAborted.get(h.producerId)
    this.ongoingAborted.delete(h.producerId)
    if (aborted && aborted.lastBatchOffset >= 0) {
      this.cleanedIndex?.append(aborted.txn)
      return false
    }
    return true
  }
}
