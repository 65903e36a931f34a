// AddOffsetsToTxn (key 25), v0–4; flexible from v3. Adds a group's __consumer_offsets partition
// to the transaction, before TxnOffsetCommit.
import { f, type Infer, message } from '../schema.js'

export const AddOffsetsToTxnRequest = message({
  apiKey: 25,
  name: 'AddOffsetsToTxn',
  versions: '0-4',
  flexible: '3+',
  fields: {
    transactionalId: f.string('0+'),
    producerId: f.int64('0+'),
    producerEpoch: f.int16('0+'),
    groupId: f.string('0+'),
  },
})

export const AddOffsetsToTxnResponse = message({
  apiKey: 25,
  name: 'AddOffsetsToTxn',
  versions: '0-4',
  flexible: '3+',
  fields: {
    throttleTimeMs: f.int32('0+'),
    errorCode: f.int16('0+'),
  },
})

export type AddOffsetsToTxnRequestData = Infer<typeof AddOffsetsToTxnRequest>
export type AddOffsetsToTxnResponseData = Infer<typeof AddOffsetsToTxnResponse>
