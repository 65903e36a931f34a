// InitProducerId (key 22), v0–5; flexible from v2. v3 lets a producer pass its current id and
// epoch to resume after INVALID_PRODUCER_EPOCH; v4 adds PRODUCER_FENCED, v5 TRANSACTION_ABORTABLE
// (same layout). Later versions (two-phase commit, KIP-939) are not declared.
import { f, type Infer, message } from '../schema.js'

export const InitProducerIdRequest = message({
  apiKey: 22,
  name: 'InitProducerId',
  versions: '0-5',
  flexible: '2+',
  fields: {
    /** null for an idempotent (non-transactional) producer. */
    transactionalId: f.string('0+', { nullable: '0+' }),
    transactionTimeoutMs: f.int32('0+'),
    producerId: f.int64('3+', { default: -1 }),
    producerEpoch: f.int16('3+', { default: -1 }),
  },
})

export const InitProducerIdResponse = message({
  apiKey: 22,
  name: 'InitProducerId',
  versions: '0-5',
  flexible: '2+',
  fields: {
    throttleTimeMs: f.int32('0+'),
    errorCode: f.int16('0+'),
    producerId: f.int64('0+', { default: -1 }),
    producerEpoch: f.int16('0+'),
  },
})

export type InitProducerIdRequestData = Infer<typeof InitProducerIdRequest>
export type InitProducerIdResponseData = Infer<typeof InitProducerIdResponse>
