// The TxnProduceVerifier of one broker (ports/transactions.ts): before a producer's first
// transactional batch goes to a partition, the partition leader asks the transactional id's
// coordinator — this broker's own coordinator directly, another broker's as AddPartitionsToTxn v5
// in the broker form (verifyOnly unless Produce v12+ adds the partition, KIP-890). The coordinator
// is the leader of the id's `__transaction_state` partition; while it has none (or the topic does
// not exist) the answer is COORDINATOR_NOT_AVAILABLE. As Kafka's AddPartitionsToTxnManager does,
// PRODUCER_FENCED is answered INVALID_PRODUCER_EPOCH, the code a partition leader gives producers.
// When a transactions v2 producer's first write of a transaction arrives while its previous
// transaction is still completing (CONCURRENT_TRANSACTIONS), the add is retried here every 20 ms
// for up to 100 ms before that answer goes back (Kafka's add.partitions.to.txn.retry.backoff.ms
// and .max.ms defaults), so the producer rarely sees the retriable error.
// The partitions of one Produce request go to the coordinator together (verifyPartitions: one
// AddPartitionsToTxn transaction entry, or one local add), as Kafka's AddPartitionsToTxnManager
// batches them, so they never make each other wait as CONCURRENT_TRANSACTIONS; only the
// partitions answered so are asked again.
import type { TxnProduceVerifier } from '../../ports/transactions.js'
import { ErrorCode } from '../../protocol/errors.js'
import type { Clock } from '../../util/clock.js'
import { batchOf, type VerifyBatchRequest, type VerifyRequest } from './inter-broker.js'

export const ADD_PARTITION_RETRY_BACKOFF_MS = 20
export const ADD_PARTITION_RETRY_MAX_MS = 100

export interface TxnVerifierOptions {
  nodeId: number
  /** The coordinator's node for the id (-1: none now). */
  coordinatorOf: (transactionalId: string) => number
  /** One code per partition of the request, in order. */
  local: (req: VerifyBatchRequest) => Promise<number[]>
  remote: (nodeId: number, req: VerifyBatchRequest) => Promise<number[]>
  clock: Clock
}

export class TxnVerifier implements TxnProduceVerifier {
  constructor(private readonly opts: TxnVerifierOptions) {}

  async verify(req: VerifyRequest): Promise<number> {
    return (await this.verifyPartitions(batchOf(req)))[0]!
  }

  async verifyPartitions(req: VerifyBatchRequest): Promise<number[]> {
    const codes: number[] = req.partitions.map(() => ErrorCode.UNKNOWN_SERVER_ERROR.code)
    if (req.partitions.length === 0) return codes
    const start = this.opts.clock.monotonic()
    let pending = req.partitions.map((_, i) => i)
    for (;;) {
      const answers = await this.ask({ ...req, partitions: pending.map((i) => req.partitions[i]!) })
      const again: number[] = []
      pending.forEach((i, k) => {
        const code = answers[k] ?? ErrorCode.UNKNOWN_SERVER_ERROR.code
        codes[i] = code === ErrorCode.PRODUCER_FENCED.code ? ErrorCode.INVALID_PRODUCER_EPOCH.code : code
        if (code === ErrorCode.CONCURRENT_TRANSACTIONS.code) again.push(i)
      })
      const retry =
        req.addPartition &&
        again.length > 0 &&
        this.opts.clock.monotonic() - start + ADD_PARTITION_RETRY_BACKOFF_MS <= ADD_PARTITION_RETRY_MAX_MS
      if (!retry) return codes
      pending = again
      await new Promise<void>((resolve) => this.opts.clock.setTimeout(resolve, ADD_PARTITION_RETRY_BACKOFF_MS))
    }
  }

  private ask(req: VerifyBatchRequest): Promise<number[]> {
    const node = this.opts.coordinatorOf(req.transactionalId)
    if (node < 0) return Promise.resolve(req.partitions.map(() => ErrorCode.COORDINATOR_NOT_AVAILABLE.code))
    return node === this.opts.nodeId ? this.opts.local(req) : this.opts.remote(node, req)
  }
}
