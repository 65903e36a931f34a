// The transaction APIs' codes as each version knows them. PRODUCER_FENCED (KIP-588) exists from
// InitProducerId v4, AddPartitionsToTxn / AddOffsetsToTxn / EndTxn v2: older clients (kafkajs sends
// v1) are answered INVALID_PRODUCER_EPOCH, which they handle the same way, as Kafka's KafkaApis
// answers them. TRANSACTION_ABORTABLE (KIP-890) exists from AddPartitionsToTxn v5: v4 gets
// INVALID_TXN_STATE.
import { ErrorCode } from '../protocol/errors.js'

const FENCED = ErrorCode.PRODUCER_FENCED.code
const ABORTABLE = ErrorCode.TRANSACTION_ABORTABLE.code

export function forVersion(code: number, version: number, since: { producerFenced: number; transactionAbortable?: number }): number {
  if (code === FENCED && version < since.producerFenced) return ErrorCode.INVALID_PRODUCER_EPOCH.code
  if (code === ABORTABLE && since.transactionAbortable !== undefined && version < since.transactionAbortable) {
    return ErrorCode.INVALID_TXN_STATE.code
  }
  return code
}
