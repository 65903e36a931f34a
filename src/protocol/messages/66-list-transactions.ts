// ListTransactions (key 66), v0–2; flexible (KIP-664). v1 filters by duration (KIP-994), v2 by a
// transactional id pattern (KIP-1152).
import { f, type Infer, message, T } from '../schema.js'

export const ListTransactionsRequest = message({
  apiKey: 66,
  name: 'ListTransactions',
  versions: '0-2',
  flexible: '0+',
  fields: {
    stateFilters: f.arrayOf('0+', T.string),
    producerIdFilters: f.arrayOf('0+', T.int64),
    durationFilter: f.int64('1+', { default: -1 }),
    transactionalIdPattern: f.string('2+', { nullable: '2+', default: null }),
  },
})

export const ListTransactionsResponse = message({
  apiKey: 66,
  name: 'ListTransactions',
  versions: '0-2',
  flexible: '0+',
  fields: {
    throttleTimeMs: f.int32('0+'),
    errorCode: f.int16('0+'),
    unknownStateFilters: f.arrayOf('0+', T.string),
    transactionStates: f.array('0+', {
      transactionalId: f.string('0+'),
      producerId: f.int64('0+'),
      transactionState: f.string('0+'),
    }),
  },
})

export type ListTransactionsRequestData = Infer<typeof ListTransactionsRequest>
export type ListTransactionsResponseData = Infer<typeof ListTransactionsResponse>
