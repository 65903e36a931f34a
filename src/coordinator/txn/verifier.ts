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
import type { TxnProduceVerifier } from '../../ports/transactions.js'
import { ErrorCode } from '../../protocol/errors.js'
import type { Clock } from '../../util/clock.js'
import type { VerifyRequest } from './inter-broker.js'

export const ADD_PARTITION_RETRY_BACKOFF_MS = 20
export const ADD_PARTITION_RETRY_MAX_MS = 100

export interface TxnVerifierOptions {
  nodeId: number
  /** The coordinator's node for the id (-1: none now). */
  coordinatorOf: (transactionalId: string) => number
  local: (req: VerifyRequest) => Promise<number>
  remote: (nodeId: number, req: VerifyRequest) => Promise<number>
  clock: Clock
}

export class TxnVerifier implements TxnProduceVerifier {
  constructor(private readonly opts: TxnVerifierOptions) {}

  async verify(req: VerifyRequest): Promise<number> {
    const start = this.opts.clock.monotonic()
    for (;;) {
      const code = await this.ask(req)
      const retry =
        req.addPartition &&
        code === ErrorCode.CONCURRENT_TRANSACTIONS.code &&
        this.opts.clock.monotonic() - start + ADD_PARTITION_RETRY_BACKOFF_MS <= ADD_PARTITION_RETRY_MAX_MS
      if (!retry) return code === ErrorCode.PRODUCER_FENCED.code ? ErrorCode.INVALID_PRODUCER_EPOCH.code : code
      await new Promise<void>((resolve) => this.opts.clock.setTimeout(resolve, ADD_PARTITION_RETRY_BACKOFF_MS))
    }
  }

  private ask(req: VerifyRequest): Promise<number> {
    const node = this.opts.coordinatorOf(req.transactionalId)
    if (node < 0) return Promise.resolve(ErrorCode.COORDINATOR_NOT_AVAILABLE.code)
    return node === this.opts.nodeId ? this.opts.local(req) : this.opts.remote(node, req)
  }
}
