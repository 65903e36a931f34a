// AddPartitionsToTxn (key 24), v0–5; flexible from v3. v4 batches transactions (a broker's
// verify-only request, KIP-890 part 1); v5 adds TRANSACTION_ABORTABLE. A producer (v0–3) names one
// transaction in the top-level v3AndBelow* fields.
import { f, type Infer, message, T } from '../schema.js'

export const AddPartitionsToTxnRequest = message({
  apiKey: 24,
  name: 'AddPartitionsToTxn',
  versions: '0-5',
  flexible: '3+',
  fields: {
    transactions: f.array('4+', {
      transactionalId: f.string('4+'),
      producerId: f.int64('4+'),
      producerEpoch: f.int16('4+'),
      verifyOnly: f.bool('4+', { default: false }),
      topics: f.array('4+', {
        name: f.string('0+'),
        partitions: f.arrayOf('0+', T.int32),
      }),
    }),
    v3AndBelowTransactionalId: f.string('0-3'),
    v3AndBelowProducerId: f.int64('0-3'),
    v3AndBelowProducerEpoch: f.int16('0-3'),
    v3AndBelowTopics: f.array('0-3', {
      name: f.string('0+'),
      partitions: f.arrayOf('0+', T.int32),
    }),
  },
})

export const AddPartitionsToTxnResponse = message({
  apiKey: 24,
  name: 'AddPartitionsToTxn',
  versions: '0-5',
  flexible: '3+',
  fields: {
    throttleTimeMs: f.int32('0+'),
    errorCode: f.int16('4+'),
    resultsByTransaction: f.array('4+', {
      transactionalId: f.string('4+'),
      topicResults: f.array('4+', {
        name: f.string('0+'),
        resultsByPartition: f.array('0+', {
          partitionIndex: f.int32('0+'),
          partitionErrorCode: f.int16('0+'),
        }),
      }),
    }),
    resultsByTopicV3AndBelow: f.array('0-3', {
      name: f.string('0+'),
      resultsByPartition: f.array('0+', {
        partitionIndex: f.int32('0+'),
        partitionErrorCode: f.int16('0+'),
      }),
    }),
  },
})

export type AddPartitionsToTxnRequestData = Infer<typeof AddPartitionsToTxnRequest>
export type AddPartitionsToTxnResponseData = Infer<typeof AddPartitionsToTxnResponse>
