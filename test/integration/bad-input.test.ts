// Bad input over raw sockets against a real broker process, answered as Kafka answers it
// (as Kafka answers bad input): malformed frames close the connection; bad
// requests get the precise error code. After each case a fresh connection still gets a good
// ApiVersions answer, and the process is alive at the end.

import assert from 'node:assert/strict'
import { after, before, describe, test } from 'node:test'
import { encodeRequestHeader } from '../../src/protocol/header.js'
import { ProduceRequest, ProduceResponse } from '../../src/protocol/messages/00-produce.js'
import { FetchRequest, FetchResponse } from '../../src/protocol/messages/01-fetch.js'
import { ListOffsetsRequest, ListOffsetsResponse } from '../../src/protocol/messages/02-list-offsets.js'
import { MetadataRequest, MetadataResponse } from '../../src/protocol/messages/03-metadata.js'
import { ApiVersionsResponse } from '../../src/protocol/messages/18-api-versions.js'
import { CreateTopicsRequest, CreateTopicsResponse } from '../../src/protocol/messages/19-create-topics.js'
import { Reader } from '../../src/protocol/primitives/reader.js'
import { Writer } from '../../src/protocol/primitives/writer.js'
import { CRC_OFFSET } from '../../src/protocol/records/batch.js'
import { buildRecordBatch } from '../../src/protocol/records/builder.js'
import { type BrokerProcess, startBrokerProcess, stopAndCheck } from '../helpers/broker-process.js'
import { assertServes, frame, RawClient } from '../helpers/clients.js'

const TOPIC = 'bad-input'
const MAX_REQUEST = 1_048_576
const MAX_MESSAGE = 1_024

function header(apiKey: number, apiVersion: number, flexible: boolean, correlationId = 4242): Buffer {
  const w = new Writer()
  encodeRequestHeader(w, { apiKey, apiVersion, correlationId, clientId: 'it-bad' }, flexible)
  return w.toBuffer()
}

function smallBatch(n = 3, valueBytes = 10): Buffer {
  return buildRecordBatch({
    baseTimestamp: Date.now(),
    records: Array.from({ length: n }, (_, i) => ({
      key: Buffer.from(`k${i}`),
      value: Buffer.alloc(valueBytes, 0x61 + (i % 26)),
      headers: [{ key: 'h', value: Buffer.from(String(i)) }],
    })),
  })
}

describe('bad input', () => {
  let broker: BrokerProcess
  let topicId = ''

  before(async () => {
    broker = await startBrokerProcess({
      overrides: {
        'socket.request.max.bytes': String(MAX_REQUEST),
        'message.max.bytes': String(MAX_MESSAGE),
        'auto.create.topics.enable': 'false',
      },
    })
  })

  after(async () => {
    await stopAndCheck(broker)
  })

  const withClient = async <T>(fn: (c: RawClient) => Promise<T>): Promise<T> => {
    const c = await RawClient.connect(broker.host, broker.port)
    try {
      return await fn(c)
    } finally {
      c.close()
    }
  }

  /** Sends raw bytes and expects the broker to close the connection without answering. */
  const expectClosed = async (bytes: Buffer, what: string) => {
    await withClient(async (c) => {
      c.writeRaw(bytes)
      const r = await c.expectClose(5_000)
      assert.equal(r.closed, true, `${what}: the broker must close the connection`)
      assert.equal(r.frames, 0, `${what}: no response frame before the close`)
    })
    await assertServes(broker.host, broker.port)
  }

  const produce = (version: number, acks: number, topic: string, records: Buffer) =>
    withClient((c) =>
      c.request(ProduceRequest, ProduceResponse, version, {
        transactionalId: null,
        acks,
        timeoutMs: 5_000,
        topicData: [{ name: topic, partitionData: [{ index: 0, records }] }],
      }),
    )

  const partitionError = (res: Awaited<ReturnType<typeof produce>>, topic: string) => {
    assert.equal(res.responses.length, 1)
    assert.equal(res.responses[0]!.name, topic)
    assert.equal(res.responses[0]!.partitionResponses.length, 1)
    assert.equal(res.responses[0]!.partitionResponses[0]!.index, 0)
    return res.responses[0]!.partitionResponses[0]!
  }

  test('setup: CreateTopics v7 and a valid produce (v9 flexible, v7 non-flexible) succeed', async () => {
    const created = await withClient((c) =>
      c.request(CreateTopicsRequest, CreateTopicsResponse, 7, {
        topics: [{ name: TOPIC, numPartitions: 1, replicationFactor: 1, assignments: [], configs: [] }],
        timeoutMs: 5_000,
        validateOnly: false,
      }),
    )
    assert.equal(created.topics.length, 1)
    assert.equal(created.topics[0]!.errorCode, 0, `CreateTopics: ${created.topics[0]!.errorMessage}`)
    topicId = created.topics[0]!.topicId
    assert.notEqual(topicId, 'AAAAAAAAAAAAAAAAAAAAAA')

    const p1 = partitionError(await produce(9, -1, TOPIC, smallBatch()), TOPIC)
    assert.equal(p1.errorCode, 0)
    assert.equal(p1.baseOffset, 0)
    const p2 = partitionError(await produce(7, 1, TOPIC, smallBatch()), TOPIC)
    assert.equal(p2.errorCode, 0)
    assert.equal(p2.baseOffset, 3)
    await assertServes(broker.host, broker.port)
  })

  test('negative frame size → connection closed', async () => {
    const b = Buffer.alloc(8)
    b.writeInt32BE(-1, 0)
    await expectClosed(b, 'size -1')
    b.writeInt32BE(-2147483648, 0)
    await expectClosed(b, 'size INT32_MIN')
  })

  test('frame size above socket.request.max.bytes → connection closed (without waiting for the body)', async () => {
    const b = Buffer.alloc(4)
    b.writeInt32BE(MAX_REQUEST + 1, 0)
    await expectClosed(b, `size ${MAX_REQUEST + 1}`)
    b.writeInt32BE(0x7fffffff, 0)
    await expectClosed(b, 'size INT32_MAX')
  })

  test('zero-length and truncated frames → connection closed', async () => {
    await expectClosed(Buffer.alloc(4), 'size 0')
    // Header cut after api key and version (no correlation id).
    const h = Buffer.alloc(4)
    h.writeInt16BE(18, 0)
    h.writeInt16BE(0, 2)
    await expectClosed(frame(h), 'header without correlation id')
    // Header whose client_id length runs past the frame.
    const w = new Writer()
    w.int16(3).int16(1).int32(7).int16(100).utf8('abc', 3)
    await expectClosed(frame(w.toBuffer()), 'client_id longer than the frame')
  })

  test('body shorter than its fields / array length beyond the remaining bytes → connection closed', async () => {
    // Metadata v1: topics array claims 5 entries, none follow.
    await expectClosed(frame(Buffer.concat([header(3, 1, false), Buffer.from([0, 0, 0, 5])])), 'Metadata v1, 5 topics announced, 0 sent')
    // Metadata v1: array length INT32_MAX.
    await expectClosed(
      frame(Buffer.concat([header(3, 1, false), Buffer.from([0x7f, 0xff, 0xff, 0xff])])),
      'Metadata v1, array length INT32_MAX',
    )
    // Metadata v12 (flexible): compact array length 2^31 as uvarint.
    await expectClosed(
      frame(Buffer.concat([header(3, 12, true), Buffer.from([0x80, 0x80, 0x80, 0x80, 0x08])])),
      'Metadata v12, compact array length 2^31',
    )
    // CreateTopics v2: topic name length 200, 3 bytes present.
    const ct = new Writer()
    ct.int32(1).int16(200).utf8('abc', 3)
    await expectClosed(frame(Buffer.concat([header(19, 2, false), ct.toBuffer()])), 'CreateTopics v2, name length beyond the frame')
    // Produce v3: records length 1,000,000 with 10 bytes present.
    const pr = new Writer()
    pr.int16(-1).int16(1).int32(1000).int32(1).int16(TOPIC.length).utf8(TOPIC, TOPIC.length)
    pr.int32(1).int32(0).int32(1_000_000).bytes(Buffer.alloc(10))
    await expectClosed(frame(Buffer.concat([header(0, 3, false), pr.toBuffer()])), 'Produce v3, records length beyond the frame')
  })

  test('unknown API key → connection closed', async () => {
    await expectClosed(frame(header(1000, 0, false)), 'api key 1000')
    await expectClosed(frame(header(-1, 0, false)), 'api key -1')
  })

  test('unsupported Metadata version → connection closed', async () => {
    await expectClosed(frame(Buffer.concat([header(3, 99, false), Buffer.from([0, 0, 0, 0])])), 'Metadata v99')
    await expectClosed(frame(Buffer.concat([header(3, 14, true), Buffer.from([1, 0, 0, 0])])), 'Metadata v14')
  })

  test('ApiVersions v99 → v0 response with UNSUPPORTED_VERSION (35) and the supported ranges', async () => {
    await withClient(async (c) => {
      // A v3-shaped body (client software name and version, empty tagged fields) behind a v2 header.
      const body = Buffer.from([3, 0x69, 0x74, 4, 0x31, 0x2e, 0x30, 0])
      c.writeRaw(frame(Buffer.concat([header(18, 99, true, 99), body])))
      const f = await c.nextFrame(5_000)
      const r = new Reader(f)
      assert.equal(r.int32(), 99, 'correlation id (response header v0)')
      const res = ApiVersionsResponse.decode(0, f.subarray(r.pos))
      assert.equal(res.errorCode, 35)
      const av = res.apiKeys.find((k) => k.apiKey === 18)
      assert.ok(av, 'ApiVersions range included')
      assert.equal(av.minVersion, 0)
      assert.equal(av.maxVersion, 5)
      // Kafka lists only ApiVersions' own range here (ApiVersionsRequest.getErrorResponse); more is allowed.
      for (const k of res.apiKeys) assert.ok(k.minVersion <= k.maxVersion, `range of key ${k.apiKey}`)
      // The connection stays usable: a supported request on it is answered normally.
      const ok = await c.request(MetadataRequest, MetadataResponse, 1, { topics: [] })
      assert.equal(ok.brokers.length, 1)
    })
    await assertServes(broker.host, broker.port)
  })

  test('a batch with a flipped CRC byte → CORRUPT_MESSAGE (2)', async () => {
    const b = smallBatch()
    b[CRC_OFFSET + 2]! ^= 0xff
    const p = partitionError(await produce(9, -1, TOPIC, b), TOPIC)
    assert.equal(p.errorCode, 2)
    // A flipped record byte (covered by the CRC) too.
    const b2 = smallBatch()
    b2[b2.length - 3]! ^= 0x01
    const p2 = partitionError(await produce(7, 1, TOPIC, b2), TOPIC)
    assert.equal(p2.errorCode, 2)
    await assertServes(broker.host, broker.port)
  })

  test('a batch over message.max.bytes → MESSAGE_TOO_LARGE (10)', async () => {
    const big = smallBatch(1, 2 * MAX_MESSAGE)
    assert.ok(big.length > MAX_MESSAGE)
    const p = partitionError(await produce(7, 1, TOPIC, big), TOPIC)
    assert.equal(p.errorCode, 10)
    const p2 = partitionError(await produce(9, -1, TOPIC, big), TOPIC)
    assert.equal(p2.errorCode, 10)
    await assertServes(broker.host, broker.port)
  })

  test('produce to a missing topic with auto-creation off → UNKNOWN_TOPIC_OR_PARTITION (3)', async () => {
    const p = partitionError(await produce(9, -1, 'no-such-topic', smallBatch()), 'no-such-topic')
    assert.equal(p.errorCode, 3)
    const p2 = partitionError(await produce(3, 1, 'no-such-topic-either', smallBatch()), 'no-such-topic-either')
    assert.equal(p2.errorCode, 3)
    // Metadata did not create it either.
    const md = await withClient((c) =>
      c.request(MetadataRequest, MetadataResponse, 4, { topics: [{ name: 'no-such-topic' }], allowAutoTopicCreation: true }),
    )
    assert.equal(md.topics.length, 1)
    assert.equal(md.topics[0]!.errorCode, 3)
    await assertServes(broker.host, broker.port)
  })

  test('acks=2 → INVALID_REQUIRED_ACKS (21)', async () => {
    const p = partitionError(await produce(9, 2, TOPIC, smallBatch()), TOPIC)
    assert.equal(p.errorCode, 21)
    const p2 = partitionError(await produce(7, -2, TOPIC, smallBatch()), TOPIC)
    assert.equal(p2.errorCode, 21)
    await assertServes(broker.host, broker.port)
  })

  test('an error on a Produce with acks=0 closes the connection', async () => {
    const body = ProduceRequest.encode(9, {
      transactionalId: null,
      acks: 0,
      timeoutMs: 1000,
      topicData: [{ name: 'no-such-topic', partitionData: [{ index: 0, records: smallBatch() }] }],
    })
    await expectClosed(frame(Buffer.concat([header(0, 9, true), body])), 'acks=0 produce to a missing topic')
  })

  test('fetch beyond the log end → OFFSET_OUT_OF_RANGE (1)', async () => {
    for (const version of [4, 11, 12, 13, 17, 18]) {
      const res = await withClient((c) =>
        c.request(FetchRequest, FetchResponse, version, {
          replicaId: -1,
          maxWaitMs: 100,
          minBytes: 1,
          maxBytes: 1 << 20,
          isolationLevel: 0,
          sessionId: 0,
          sessionEpoch: -1,
          topics: [
            {
              topic: TOPIC,
              topicId,
              partitions: [{ partition: 0, fetchOffset: 1000, partitionMaxBytes: 1 << 20 }],
            },
          ],
          forgottenTopicsData: [],
          rackId: '',
        }),
      )
      if (version >= 7) assert.equal(res.errorCode, 0, `Fetch v${version}: top-level error`)
      assert.equal(res.responses.length, 1)
      const p = res.responses[0]!.partitions[0]!
      assert.equal(p.partitionIndex, 0)
      assert.equal(p.errorCode, 1, `Fetch v${version}: partition error`)
    }
    // Nothing rejected above was appended: the log still ends at the 6 records of the setup.
    for (const version of [1, 7]) {
      const lo = await withClient((c) =>
        c.request(ListOffsetsRequest, ListOffsetsResponse, version, {
          replicaId: -1,
          isolationLevel: 0,
          topics: [{ name: TOPIC, partitions: [{ partitionIndex: 0, timestamp: -1 }] }],
        }),
      )
      const p = lo.topics[0]!.partitions[0]!
      assert.equal(p.errorCode, 0)
      assert.equal(p.offset, 6, `ListOffsets v${version}: latest offset`)
    }
    await assertServes(broker.host, broker.port)
  })

  test('CreateTopics: invalid names → 17, 0 or negative partitions → 37, existing topic → 36', async () => {
    const long = 'x'.repeat(250)
    const t = (name: string, numPartitions = 1) => ({ name, numPartitions, replicationFactor: 1, assignments: [], configs: [] })
    for (const version of [2, 7]) {
      const res = await withClient((c) =>
        c.request(CreateTopicsRequest, CreateTopicsResponse, version, {
          topics: [t('bad/name'), t('..'), t('.'), t(long), t('bad name'), t(`zero-${version}`, 0), t(`neg-${version}`, -5), t(TOPIC)],
          timeoutMs: 5_000,
          validateOnly: false,
        }),
      )
      const code = (name: string) => {
        const r = res.topics.find((x) => x.name === name)
        assert.ok(r, `CreateTopics v${version}: result for ${name.slice(0, 20)}`)
        return r.errorCode
      }
      assert.equal(res.topics.length, 8)
      assert.equal(code('bad/name'), 17, `v${version} bad/name`)
      assert.equal(code('..'), 17, `v${version} ..`)
      assert.equal(code('.'), 17, `v${version} .`)
      assert.equal(code(long), 17, `v${version} 250 chars`)
      assert.equal(code('bad name'), 17, `v${version} space`)
      assert.equal(code(`zero-${version}`), 37, `v${version} 0 partitions`)
      assert.equal(code(`neg-${version}`), 37, `v${version} -5 partitions`)
      assert.equal(code(TOPIC), 36, `v${version} existing`)
    }
    // None of the invalid topics was created.
    const md = await withClient((c) => c.request(MetadataRequest, MetadataResponse, 1, { topics: null }))
    assert.deepEqual(
      md.topics.map((x) => x.name),
      [TOPIC],
    )
    await assertServes(broker.host, broker.port)
  })

  test('the broker process is still alive', () => {
    assert.equal(broker.alive(), true, `stderr tail:\n${broker.stderr().slice(-3000)}`)
  })
})
