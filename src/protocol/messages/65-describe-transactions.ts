// DescribeTransactions (key 65), v0; flexible (KIP-664).
import { f, type Infer, message, T } from '../schema.js'

export const DescribeTransactionsRequest = message({
  apiKey: 65,
  name: 'DescribeTransactions',
  versions: '0',
  flexible: '0+',
  fields: {
    transactionalIds: f.arrayOf('0+', T.string),
  },
})

export const DescribeTransactionsResponse = message({
  apiKey: 65,
  name: 'DescribeTransactions',
  versions: '0',
  flexible: '0+',
  fields: {
    throttleTimeMs: f.int32('0+'),
    transactionStates: f.array('0+', {
      errorCode: f.int16('0+'),
      transactionalId: f.string('0+'),
      transactionState: f.string('0+'),
      transactionTimeoutMs: f.int32('0+'),
      transactionStartTimeMs: f.int64('0+'),
      producerId: f.int64('0+'),
      producerEpoch: f.int16('0+'),
      topics: f.array('0+', {
        topic: f.string('0+'),
        partitions: f.arrayOf('0+', T.int32),
      }),
    }),
  },
})

export type DescribeTransactionsRequestData = Infer<typeof DescribeTransactionsRequest>
export type DescribeTransactionsResponseData = Infer<typeof DescribeTransactionsResponse>
