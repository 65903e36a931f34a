// The TxnProduceVerifier of one broker (ports/transactions.ts): before a producer's first
// transactional batch goes to a partition, the partition leader asks the transactional id's
// coordinator — this broker's own coordinator directly, another broker's as AddPartitionsToTxn v5
// in the broker form (verifyOnly unless Produce v12+ adds the partition, KIP-890). The coordinator
// is the leader of the id's `__transaction_state` partition; while it has none (or the topic does
// not exist) the answer is COORDINATOR_NOT_AVAILABLE. As Kafka's AddPartitionsToTxnManager does,
// PRODUCER_FENCED is answered INVALID_PRODUCER_EPOCH, the code a partition leader gives producers.
import type { TxnProduceVerifier } from '../../ports/transactions.js'
import { ErrorCode } from '../../protocol/errors.js'
import type { VerifyRequest } from './inter-broker.js'

export interface TxnVerifierOptions {
  nodeId: number
  /** The coordinator's node for the id (-1: none now). */
  coordinatorOf: (transactionalId: string) => number
  local: (req: VerifyRequest) => Promise<number>
  remote: (nodeId: number, req: VerifyRequest) => Promise<number>
}

export class TxnVerifier implements TxnProduceVerifier {
  constructor(private readonly opts: TxnVerifierOptions) {}

  async verify(req: VerifyRequest): Promise<number> {
    const node = this.opts.coordinatorOf(req.transactionalId)
    let code: number
    if (node < 0) code = ErrorCode.COORDINATOR_NOT_AVAILABLE.code
    else if (node === this.opts.nodeId) code = await this.opts.local(req)
    else code = await this.opts.remote(node, req)
    return code === ErrorCode.PRODUCER_FENCED.code ? ErrorCode.INVALID_PRODUCER_EPOCH.code : code
  }
}
