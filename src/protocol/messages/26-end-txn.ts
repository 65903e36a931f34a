// EndTxn (key 26), v0–5; flexible from v3. v5 (transactions v2, KIP-890 part 2) answers the
// producer id and the epoch bumped for the next transaction.
import { f, type Infer, message } from '../schema.js'

export const EndTxnRequest = message({
  apiKey: 26,
  name: 'EndTxn',
  versions: '0-5',
  flexible: '3+',
  fields: {
    transactionalId: f.string('0+'),
    producerId: f.int64('0+'),
    producerEpoch: f.int16('0+'),
    committed: f.bool('0+'),
  },
})

export const EndTxnResponse = message({
  apiKey: 26,
  name: 'EndTxn',
  versions: '0-5',
  flexible: '3+',
  fields: {
    throttleTimeMs: f.int32('0+'),
    errorCode: f.int16('0+'),
    producerId: f.int64('5+', { default: -1 }),
    producerEpoch: f.int16('5+', { default: -1 }),
  },
})

export type EndTxnRequestData = Infer<typeof EndTxnRequest>
export type EndTxnResponseData = Infer<typeof EndTxnResponse>
