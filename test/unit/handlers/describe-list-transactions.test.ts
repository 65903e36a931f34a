// DescribeTransactions v0 and ListTransactions v0–2 through their handlers and codecs, over a fake
// transaction coordinator: per-id answers in the order asked (errors such as NOT_COORDINATOR and
// TRANSACTIONAL_ID_NOT_FOUND passed through per id), the filters each ListTransactions version
// carries (duration from v1, the id pattern from v2; off below), unknown state filters echoed.
import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import describeTransactions from '../../../src/handlers/65-describe-transactions.js'
import listTransactions from '../../../src/handlers/66-list-transactions.js'
import type { BrokerServices } from '../../../src/ports/broker-services.js'
import type { DescribedTransaction, ListTransactionsFilter, TransactionService } from '../../../src/ports/transactions.js'
import { ErrorCode } from '../../../src/protocol/errors.js'
import { callHandler } from '../../helpers/local-broker.js'

const ONGOING: DescribedTransaction = {
  errorCode: 0,
  transactionalId: 'copier',
  transactionState: 'Ongoing',
  transactionTimeoutMs: 60_000,
  transactionStartTimeMs: 1_700_000_000_000,
  producerId: 4000,
  producerEpoch: 7,
  topics: [
    { topic: 'out', partitions: [0, 2] },
    { topic: '__consumer_offsets', partitions: [11] },
  ],
}

function fakeCoordinator() {
  const filters: ListTransactionsFilter[] = []
  const service = {
    describe: (ids: string[]) =>
      ids.map((id): DescribedTransaction => {
        if (id === 'copier') return ONGOING
        const errorCode = id === 'elsewhere' ? ErrorCode.NOT_COORDINATOR.code : ErrorCode.TRANSACTIONAL_ID_NOT_FOUND.code
        return { ...ONGOING, errorCode, transactionalId: id, transactionState: '', producerId: -1, producerEpoch: -1, topics: [] }
      }),
    list: (f: ListTransactionsFilter) => {
      filters.push(f)
      const unknown = f.states.filter((s) => !['Ongoing', 'Empty', 'CompleteCommit'].includes(s))
      return {
        errorCode: 0,
        unknownStateFilters: unknown,
        transactions: [
          { transactionalId: 'copier', producerId: 4000, transactionState: 'Ongoing' },
          { transactionalId: 'idle', producerId: 4001, transactionState: 'Empty' },
        ],
      }
    },
  } as unknown as TransactionService
  const broker = { nodeId: 0, transactions: service } as unknown as BrokerServices
  return { broker, filters }
}

describe('DescribeTransactions handler', () => {
  it('serves v0 only', () => {
    assert.equal(describeTransactions.minVersion, 0)
    assert.equal(describeTransactions.maxVersion, 0)
  })

  it("answers each id in the order asked, with the coordinator's state or its error", async () => {
    const { broker } = fakeCoordinator()
    const res = await callHandler(broker, describeTransactions, 0, { transactionalIds: ['nobody', 'copier', 'elsewhere'] })
    assert.equal(res.throttleTimeMs, 0)
    assert.deepEqual(
      res.transactionStates.map((t) => [t.transactionalId, t.errorCode]),
      [
        ['nobody', ErrorCode.TRANSACTIONAL_ID_NOT_FOUND.code],
        ['copier', 0],
        ['elsewhere', ErrorCode.NOT_COORDINATOR.code],
      ],
    )
    assert.deepEqual(res.transactionStates[1], ONGOING)
  })
})

describe('ListTransactions handler', () => {
  it('serves v0–2', () => {
    assert.equal(listTransactions.minVersion, 0)
    assert.equal(listTransactions.maxVersion, 2)
  })

  it('passes the state and producer filters, echoes unknown states, lists what the coordinator lists', async () => {
    const { broker, filters } = fakeCoordinator()
    const res = await callHandler(broker, listTransactions, 0, { stateFilters: ['Ongoing', 'Hanging'], producerIdFilters: [4000] })
    assert.equal(res.errorCode, 0)
    assert.deepEqual(res.unknownStateFilters, ['Hanging'])
    assert.deepEqual(
      res.transactionStates.map((t) => [t.transactionalId, t.producerId, t.transactionState]),
      [
        ['copier', 4000, 'Ongoing'],
        ['idle', 4001, 'Empty'],
      ],
    )
    assert.deepEqual(filters, [{ states: ['Ongoing', 'Hanging'], producerIds: [4000], durationFilterMs: -1, transactionalIdPattern: null }])
  })

  it('takes the duration filter from v1 and the id pattern from v2, and leaves them off below', async () => {
    const { broker, filters } = fakeCoordinator()
    const body = { stateFilters: [], producerIdFilters: [], durationFilter: 30_000, transactionalIdPattern: 'cop.*' }
    for (const v of [0, 1, 2]) await callHandler(broker, listTransactions, v, body)
    assert.deepEqual(
      filters.map((f) => [f.durationFilterMs, f.transactionalIdPattern]),
      [
        [-1, null],
        [30_000, null],
        [30_000, 'cop.*'],
      ],
    )
  })
})
