// read_committed in the fetcher's decoding (decodeRecords with the Fetch response's aborted
// transactions), on batches built as a partition log holds them: transactional batches of two
// producers, plain batches, and COMMIT/ABORT control batches. Records of an aborted transaction are
// dropped from its first offset up to its producer's ABORT marker — and only those: a later
// committed transaction of the same producer, another producer's interleaved transaction and plain
// records are kept; markers are never delivered but move the position; read_uncommitted keeps all.
import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { type AbortedTransaction, decodeRecords } from '../../../src/client/consumer.js'
import { setBaseOffset, TRANSACTIONAL_MASK } from '../../../src/protocol/records/batch.js'
import { buildRecordBatch } from '../../../src/protocol/records/builder.js'
import { buildMarkerBatch } from '../../../src/protocol/records/control-record.js'

const ABORT = 0
const COMMIT = 1

function data(baseOffset: number, producerId: number, values: string[], transactional = true): Buffer {
  return buildRecordBatch({
    baseOffset,
    producerId,
    producerEpoch: 0,
    baseSequence: producerId < 0 ? -1 : baseOffset,
    attributes: transactional ? TRANSACTIONAL_MASK : 0,
    records: values.map((v) => ({ key: null, value: Buffer.from(v), timestamp: 1000 })),
  })
}

function marker(baseOffset: number, producerId: number, type: number): Buffer {
  const b = buildMarkerBatch({ producerId, producerEpoch: 0, coordinatorEpoch: 3, commit: type === COMMIT, timestamp: 1000 })
  setBaseOffset(b, 0, baseOffset)
  return b
}

// offset: 0-1 pid 1 (aborted) · 2 pid 2 (committed) · 3 plain · 4 ABORT pid 1 · 5 COMMIT pid 2 ·
// 6 pid 1 (a later, committed transaction) · 7 COMMIT pid 1 · 8 pid 1 (aborted again) · 9 ABORT pid 1 · 10 plain
const LOG = Buffer.concat([
  data(0, 1, ['a1', 'a2']),
  data(2, 2, ['b1']),
  data(3, -1, ['plain1'], false),
  marker(4, 1, ABORT),
  marker(5, 2, COMMIT),
  data(6, 1, ['c1']),
  marker(7, 1, COMMIT),
  data(8, 1, ['d1']),
  marker(9, 1, ABORT),
  data(10, -1, ['plain2'], false),
])
const ABORTED: AbortedTransaction[] = [
  { producerId: 1, firstOffset: 8 }, // out of order on purpose: the filter sorts them
  { producerId: 1, firstOffset: 0 },
]

const values = (r: ReturnType<typeof decodeRecords>) => r.records.map((x) => `${x.offset}:${x.value?.toString()}`)

describe('read_committed decoding', () => {
  it('drops the records of aborted transactions and nothing else', () => {
    const r = decodeRecords('t', 0, LOG, 0, ABORTED)
    assert.deepEqual(values(r), ['2:b1', '3:plain1', '6:c1', '10:plain2'])
    assert.equal(r.nextOffset, 11)
  })

  it('read_uncommitted returns every data record; markers are never returned', () => {
    const r = decodeRecords('t', 0, LOG, 0)
    assert.deepEqual(values(r), ['0:a1', '1:a2', '2:b1', '3:plain1', '6:c1', '8:d1', '10:plain2'])
    assert.equal(r.nextOffset, 11)
  })

  it('a transaction that began before the fetch position is still dropped', () => {
    const r = decodeRecords('t', 0, LOG, 1, ABORTED)
    assert.deepEqual(values(r), ['2:b1', '3:plain1', '6:c1', '10:plain2'])
  })

  it('a marker before the fetch position still ends its transaction', () => {
    // Offsets 0-4 are below the position, 4 being pid 1's ABORT: its later committed transaction (6) stays.
    const r = decodeRecords('t', 0, LOG, 5, ABORTED)
    assert.deepEqual(values(r), ['6:c1', '10:plain2'])
  })

  it('with no aborted transactions listed, committed reads keep every data record', () => {
    assert.deepEqual(values(decodeRecords('t', 0, LOG, 0, [])), values(decodeRecords('t', 0, LOG, 0)))
  })

  it("an aborted transaction of one producer leaves another producer's records alone", () => {
    const r = decodeRecords('t', 0, LOG, 0, [{ producerId: 2, firstOffset: 2 }])
    assert.deepEqual(values(r), ['0:a1', '1:a2', '3:plain1', '6:c1', '8:d1', '10:plain2'])
  })

  it('an aborted transaction whose marker is not in this fetch keeps dropping to the end', () => {
    const cut = Buffer.concat([data(0, 1, ['a1', 'a2']), data(2, -1, ['plain'], false), data(3, 1, ['a3'])])
    const r = decodeRecords('t', 0, cut, 0, [{ producerId: 1, firstOffset: 0 }])
    assert.deepEqual(values(r), ['2:plain'])
    assert.equal(r.nextOffset, 4)
  })
})
