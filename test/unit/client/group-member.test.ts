// The client's consumer-group assignors against the examples in Kafka's RangeAssignor and
// RoundRobinAssignor documentation, plus member ordering (static members first), idle members and
// unknown topics; and the fetcher's record decoding (batches before the position, KIP-74 partial
// batches, control batches, CRC, compressed batches).
import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { decodeRecords } from '../../../src/client/consumer.js'
import { ClientError } from '../../../src/client/errors.js'
import {
  type AssignorMember,
  DEFAULT_ASSIGNORS,
  kafkajsRoundRobinAssignor,
  rangeAssignor,
  roundRobinAssignor,
} from '../../../src/client/group-member.js'
import { ATTRIBUTES_OFFSET, CONTROL_MASK, writeBatchCrc } from '../../../src/protocol/records/batch.js'
import { buildRecordBatch } from '../../../src/protocol/records/builder.js'

const member = (memberId: string, topics: string[], groupInstanceId: string | null = null): AssignorMember => ({
  memberId,
  groupInstanceId,
  topics,
})

/** memberId → "t0:0,1 t1:2" for compact comparisons. */
function flat(plan: Map<string, Array<{ topic: string; partitions: number[] }>>): Record<string, string> {
  const out: Record<string, string> = {}
  for (const [m, list] of plan) out[m] = list.map((a) => `${a.topic}:${a.partitions.join(',')}`).join(' ')
  return out
}

describe('range assignor', () => {
  it("Kafka's example: two consumers, two topics of three partitions", () => {
    const plan = rangeAssignor.assign(
      [member('C1', ['t0', 't1']), member('C0', ['t0', 't1'])],
      new Map([
        ['t0', 3],
        ['t1', 3],
      ]),
    )
    assert.deepEqual(flat(plan), { C1: 't0:2 t1:2', C0: 't0:0,1 t1:0,1' })
  })

  it('spreads the remainder over the first members, one each', () => {
    const plan = rangeAssignor.assign(
      ['a', 'b', 'c'].map((m) => member(m, ['t'])),
      new Map([['t', 8]]),
    )
    assert.deepEqual(flat(plan), { a: 't:0,1,2', b: 't:3,4,5', c: 't:6,7' })
  })

  it('members beyond the partition count get nothing; only subscribers share a topic', () => {
    const plan = rangeAssignor.assign(
      [member('a', ['t']), member('b', ['t']), member('c', ['t', 'u'])],
      new Map([
        ['t', 2],
        ['u', 2],
      ]),
    )
    assert.deepEqual(flat(plan), { a: 't:0', b: 't:1', c: 'u:0,1' })
  })

  it('orders static members by instance id, before dynamic ones', () => {
    const plan = rangeAssignor.assign([member('a', ['t']), member('z', ['t'], 'i-1'), member('m', ['t'], 'i-0')], new Map([['t', 3]]))
    assert.deepEqual(flat(plan), { a: 't:2', z: 't:1', m: 't:0' })
  })

  it('skips topics without metadata', () => {
    assert.deepEqual(flat(rangeAssignor.assign([member('a', ['gone', 't'])], new Map([['t', 1]]))), { a: 't:0' })
  })
})

describe('round-robin assignor', () => {
  it("Kafka's example: two consumers, two topics of three partitions", () => {
    const plan = roundRobinAssignor.assign(
      [member('C0', ['t0', 't1']), member('C1', ['t0', 't1'])],
      new Map([
        ['t0', 3],
        ['t1', 3],
      ]),
    )
    assert.deepEqual(flat(plan), { C0: 't0:0,2 t1:1', C1: 't0:1 t1:0,2' })
  })

  it("Kafka's example with different subscriptions", () => {
    const members = [member('C0', ['t0']), member('C1', ['t0', 't1']), member('C2', ['t0', 't1', 't2'])]
    const plan = roundRobinAssignor.assign(
      members,
      new Map([
        ['t0', 1],
        ['t1', 2],
        ['t2', 3],
      ]),
    )
    assert.deepEqual(flat(plan), { C0: 't0:0', C1: 't1:0', C2: 't1:1 t2:0,1,2' })
  })

  it('every partition exactly once, idle members get an empty assignment', () => {
    const members = ['m3', 'm1', 'm2', 'm0', 'm4'].map((m) => member(m, ['t']))
    const plan = roundRobinAssignor.assign(members, new Map([['t', 3]]))
    assert.deepEqual(flat(plan), { m3: '', m1: 't:1', m2: 't:2', m0: 't:0', m4: '' })
  })

  it("is offered under Kafka's names and kafkajs's, range first", () => {
    assert.deepEqual(
      DEFAULT_ASSIGNORS.map((a) => a.name),
      ['range', 'roundrobin', 'RoundRobinAssigner'],
    )
    const members = [member('b', ['t']), member('a', ['t'])]
    assert.deepEqual(flat(kafkajsRoundRobinAssignor.assign(members, new Map([['t', 4]]))), { b: 't:1,3', a: 't:0,2' })
  })
})

describe('fetched record decoding', () => {
  const batch = (baseOffset: number, values: string[], attributes = 0) => {
    const b = buildRecordBatch({
      baseOffset,
      baseTimestamp: 1000,
      records: values.map((v, i) => ({ key: Buffer.from(`k${i}`), value: Buffer.from(v), headers: [{ key: 'h', value: Buffer.from(v) }] })),
      attributes,
    })
    return b
  }

  it('drops records before the position and stops at a partial batch (KIP-74)', () => {
    const first = batch(10, ['a', 'b', 'c'])
    const second = batch(13, ['d', 'e'])
    const third = batch(15, ['f'])
    const buf = Buffer.concat([first, second, third.subarray(0, third.length - 3)])
    const { records, nextOffset } = decodeRecords('t', 0, buf, 11)
    assert.deepEqual(
      records.map((r) => [r.offset, r.value!.toString(), r.key!.toString(), r.headers[0]!.value!.toString()]),
      [
        [11, 'b', 'k1', 'b'],
        [12, 'c', 'k2', 'c'],
        [13, 'd', 'k0', 'd'],
        [14, 'e', 'k1', 'e'],
      ],
    )
    assert.equal(nextOffset, 15)
    assert.equal(records[0]!.topic, 't')
    assert.equal(records[0]!.timestamp, 1000)
  })

  it('skips batches wholly before the position and control batches, but moves past them', () => {
    const buf = Buffer.concat([batch(0, ['old']), batch(1, ['marker'], CONTROL_MASK), batch(2, ['x'])])
    const { records, nextOffset } = decodeRecords('t', 0, buf, 1)
    assert.deepEqual(
      records.map((r) => r.offset),
      [2],
    )
    assert.equal(nextOffset, 3)
    assert.deepEqual(decodeRecords('t', 0, Buffer.alloc(0), 7), { records: [], nextOffset: 7 })
  })

  it('fails on a CRC mismatch', () => {
    const b = batch(0, ['abc'])
    b[b.length - 1]! ^= 0xff
    assert.throws(
      () => decodeRecords('t', 0, b, 0),
      (e: unknown) => e instanceof ClientError && e.code === 'CORRUPT_MESSAGE',
    )
  })

  it('decodes compressed batches, and names a codec it does not know', () => {
    for (const compression of [1, 2, 3, 4]) {
      const b = buildRecordBatch({ baseOffset: 5, compression, records: [{ value: Buffer.from('zipped'), key: null, headers: [] }] })
      const { records } = decodeRecords('events', 3, b, 0)
      assert.deepEqual(
        records.map((r) => [r.offset, r.value!.toString()]),
        [[5, 'zipped']],
        `codec ${compression}`,
      )
    }
    const b = batch(0, ['abc'])
    b.writeInt16BE(b.readInt16BE(ATTRIBUTES_OFFSET) | 5, ATTRIBUTES_OFFSET) // no such codec
    writeBatchCrc(b, 0)
    assert.throws(
      () => decodeRecords('events', 3, b, 0),
      (e: unknown) => e instanceof ClientError && e.code === 'UNSUPPORTED_COMPRESSION_TYPE' && /events-3.*codec 5/.test(e.message),
    )
  })
})
