// Compressed record batches end to end against a real broker process:
// - every codec round-trips through independent implementations: kcat (librdkafka's own codecs)
//   producing and kafkajs consuming; @platformatic/kafka (its own WebAssembly codecs: gzip, snappy,
//   lz4) and kafkajs (gzip from zlib; snappy/lz4/zstd through small adapters over our codecs)
//   producing and kcat consuming;
// - LogAppendTime on a compressed batch;
// - topic compression.type: gzip recompresses a snappy batch, uncompressed decompresses a zstd
//   one (stored attributes checked with a raw Fetch);
// - refusals: codec 5, zstd before Produce v7, undecodable data, and compression bombs (gzip of
//   512 MiB of zeros, zstd of 1 GiB) refused with INVALID_RECORD while the broker's peak resident
//   memory (VmHWM) grows by less than twice the decompression bound.
import assert from 'node:assert/strict'
import { readFileSync } from 'node:fs'
import { after, before, describe, test } from 'node:test'
import { createGzip } from 'node:zlib'
import { Producer, stringSerializers } from '@platformatic/kafka'
import kafkajs from 'kafkajs'
import { FetchRequest, FetchResponse } from '../../src/protocol/messages/01-fetch.js'
import { ProduceRequest, ProduceResponse } from '../../src/protocol/messages/00-produce.js'
import { CreateTopicsRequest, CreateTopicsResponse } from '../../src/protocol/messages/19-create-topics.js'
import { ATTRIBUTES_OFFSET, BATCH_HEADER_SIZE, writeBatchCrc } from '../../src/protocol/records/batch.js'
import { buildRecordBatch } from '../../src/protocol/records/builder.js'
import { CompressionType, compress, decompress } from '../../src/protocol/records/compression.js'
import { iterateBatches, iterateRecords } from '../../src/protocol/records/iterator.js'
import { type BrokerProcess, startBrokerProcess, stopAndCheck } from '../helpers/broker-process.js'
import { assertServes, kcatConsumeAll, RawClient, runKcat } from '../helpers/clients.js'

const { CompressionCodecs, CompressionTypes, Kafka, logLevel } = kafkajs
type CompressionTypes = kafkajs.CompressionTypes
const MiB = 1024 * 1024
/** tributary.max.decompressed.batch.bytes for this broker. */
const LIMIT = 32 * MiB
const CODECS = ['gzip', 'snappy', 'lz4', 'zstd'] as const
type Codec = (typeof CODECS)[number]
const CODEC_ID: Record<Codec, number> = { gzip: 1, snappy: 2, lz4: 3, zstd: 4 }
const COUNT = 3000

// kafkajs ships gzip only; the other codecs are plugged in the way kafkajs-snappy & co. do it.
function kafkajsCodec(id: number) {
  return () => ({
    compress: async (encoder: { buffer: Buffer }) => compress(id, encoder.buffer),
    decompress: async (buffer: Buffer) => decompress(id, buffer, LIMIT),
  })
}
CompressionCodecs[CompressionTypes.Snappy] = kafkajsCodec(CompressionType.Snappy)
CompressionCodecs[CompressionTypes.LZ4] = kafkajsCodec(CompressionType.Lz4)
CompressionCodecs[CompressionTypes.ZSTD] = kafkajsCodec(CompressionType.Zstd)
const KAFKAJS_TYPE: Record<Codec, CompressionTypes> = {
  gzip: CompressionTypes.GZIP,
  snappy: CompressionTypes.Snappy,
  lz4: CompressionTypes.LZ4,
  zstd: CompressionTypes.ZSTD,
}

const recordValue = (client: string, i: number) => `${client} value ${i} ${'abc'.repeat(i % 50)}`

/** The batch codecs stored in partition 0 of topic, read back with a raw Fetch v11. */
async function storedBatches(broker: BrokerProcess, topic: string) {
  const c = await RawClient.connect(broker.host, broker.port)
  try {
    const res = await c.request(FetchRequest, FetchResponse, 11, {
      replicaId: -1,
      maxWaitMs: 0,
      minBytes: 0,
      maxBytes: 64 * MiB,
      isolationLevel: 0,
      sessionId: 0,
      sessionEpoch: -1,
      topics: [{ topic, topicId: '', partitions: [{ partition: 0, fetchOffset: 0, partitionMaxBytes: 64 * MiB }] }],
      forgottenTopicsData: [],
      rackId: '',
    })
    const p = res.responses[0]!.partitions[0]!
    assert.equal(p.errorCode, 0, `Fetch ${topic}`)
    const records = p.records ?? Buffer.alloc(0)
    return [...iterateBatches(records)].map((h) => ({
      header: h,
      values: [...iterateRecords(records, h.position, LIMIT)].map((r) => r.value?.toString() ?? null),
    }))
  } finally {
    c.close()
  }
}

/** VmHWM (peak resident set) of a process, in bytes. */
function peakRss(pid: number): number {
  const m = /VmHWM:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))
  assert.ok(m, 'VmHWM in /proc/<pid>/status')
  return Number(m[1]) * 1024
}

/** gzip of `bytes` zeros, produced in chunks so the test never holds the expanded data. */
async function gzipOfZeros(bytes: number): Promise<Buffer> {
  const gz = createGzip({ level: 9 })
  const out: Buffer[] = []
  gz.on('data', (b: Buffer) => out.push(b))
  const done = new Promise((resolve) => gz.on('end', resolve))
  const chunk = Buffer.alloc(MiB)
  for (let written = 0; written < bytes; written += chunk.length) {
    if (!gz.write(chunk)) await new Promise((resolve) => gz.once('drain', resolve))
  }
  gz.end()
  await done
  return Buffer.concat(out)
}

/** A zstd frame of `blocks` RLE blocks of 128 KiB each: 32 KB that expand to blocks × 128 KiB. */
function zstdRleBomb(blocks: number): Buffer {
  const parts: Buffer[] = [Buffer.from([0x28, 0xb5, 0x2f, 0xfd, 0x00, 0x50])]
  for (let i = 0; i < blocks; i++) {
    const v = (i === blocks - 1 ? 1 : 0) | (1 << 1) | ((128 * 1024) << 3)
    parts.push(Buffer.from([v & 0xff, (v >> 8) & 0xff, (v >> 16) & 0xff, 0]))
  }
  return Buffer.concat(parts)
}

/** A one-record batch header (CRC set) whose records section is `section`, marked with codec. */
function batchWithSection(codec: number, section: Buffer, recordCount = 1): Buffer {
  const base = buildRecordBatch({ baseTimestamp: Date.now(), records: [{ key: null, value: Buffer.from('x') }] })
  const out = Buffer.concat([base.subarray(0, BATCH_HEADER_SIZE), section])
  out.writeInt32BE(out.length - 12, 8)
  out.writeInt16BE(codec, ATTRIBUTES_OFFSET)
  out.writeInt32BE(recordCount - 1, 23)
  out.writeInt32BE(recordCount, 57)
  writeBatchCrc(out, 0)
  return out
}

describe('compressed batches', () => {
  let broker: BrokerProcess
  let kafka: kafkajs.Kafka

  before(async () => {
    broker = await startBrokerProcess({
      overrides: { 'num.partitions': '1', 'tributary.max.decompressed.batch.bytes': String(LIMIT) },
    })
    kafka = new Kafka({ clientId: 'it-compression', brokers: [broker.bootstrap], logLevel: logLevel.NOTHING })
  })

  after(async () => {
    await stopAndCheck(broker)
  })

  const createTopic = async (name: string, configs: Array<{ name: string; value: string }> = []) => {
    const c = await RawClient.connect(broker.host, broker.port)
    try {
      const res = await c.request(CreateTopicsRequest, CreateTopicsResponse, 7, {
        topics: [{ name, numPartitions: 1, replicationFactor: 1, assignments: [], configs }],
        timeoutMs: 5_000,
        validateOnly: false,
      })
      assert.equal(res.topics[0]!.errorCode, 0, `CreateTopics ${name}: ${res.topics[0]!.errorMessage}`)
    } finally {
      c.close()
    }
  }

  // A long linger puts every value in one batch: librdkafka sends a small tail batch uncompressed
  // when compressing would not make it smaller, and the tests check the stored codec.
  const kcatProduce = async (topic: string, codec: Codec, values: string[]) => {
    const res = await runKcat(['-P', '-b', broker.bootstrap, '-t', topic, '-z', codec, '-X', 'linger.ms=1000'], `${values.join('\n')}\n`)
    assert.equal(res.code, 0, `kcat -P -z ${codec}: ${res.stderr}`)
  }

  const kafkajsReadAll = async (topic: string, count: number): Promise<string[]> => {
    const consumer = kafka.consumer({ groupId: `it-compression-${topic}` })
    await consumer.connect()
    try {
      await consumer.subscribe({ topic, fromBeginning: true })
      const got: string[] = []
      let resolve!: () => void
      const done = new Promise<void>((r) => (resolve = r))
      await consumer.run({
        eachMessage: async ({ message }) => {
          got.push(message.value?.toString() ?? '')
          if (got.length >= count) resolve()
        },
      })
      await done
      return got
    } finally {
      await consumer.disconnect()
    }
  }

  for (const codec of CODECS) {
    test(`${codec}: kcat produces, kafkajs consumes; the batch is stored as librdkafka compressed it`, async () => {
      const topic = `kcat-${codec}`
      const values = Array.from({ length: COUNT }, (_, i) => recordValue('kcat', i))
      await kcatProduce(topic, codec, values)
      assert.deepEqual(await kafkajsReadAll(topic, COUNT), values)
      const stored = await storedBatches(broker, topic)
      assert.ok(stored.length >= 1)
      for (const b of stored) assert.equal(b.header.compression, CODEC_ID[codec], 'stored codec')
      assert.deepEqual(
        stored.flatMap((b) => b.values),
        values,
      )
    })

    test(`${codec}: kafkajs produces, kcat consumes`, async () => {
      const topic = `kafkajs-${codec}`
      const values = Array.from({ length: COUNT }, (_, i) => recordValue('kafkajs', i))
      const producer = kafka.producer({ allowAutoTopicCreation: true })
      await producer.connect()
      try {
        for (let i = 0; i < COUNT; i += 500) {
          await producer.send({
            topic,
            acks: -1,
            compression: KAFKAJS_TYPE[codec],
            messages: values.slice(i, i + 500).map((value, j) => ({ key: `k${i + j}`, value, headers: { n: String(i + j) } })),
          })
        }
      } finally {
        await producer.disconnect()
      }
      const got = await kcatConsumeAll(broker.bootstrap, topic)
      assert.deepEqual(
        got.map((r) => r.value),
        values,
      )
      assert.deepEqual(
        got.map((r) => r.offset),
        values.map((_, i) => i),
      )
      assert.deepEqual(got[7]!.headers, [['n', '7']])
      for (const b of await storedBatches(broker, topic)) assert.equal(b.header.compression, CODEC_ID[codec])
    })
  }

  for (const codec of ['gzip', 'snappy', 'lz4'] as const) {
    test(`${codec}: @platformatic/kafka produces with its own codec, kcat consumes`, async () => {
      const topic = `platformatic-${codec}`
      await createTopic(topic)
      const values = Array.from({ length: COUNT }, (_, i) => recordValue('platformatic', i))
      const producer = new Producer({
        clientId: 'it-compression-platformatic',
        bootstrapBrokers: [broker.bootstrap],
        serializers: stringSerializers,
        compression: codec,
      })
      try {
        for (let i = 0; i < COUNT; i += 500) {
          await producer.send({ acks: -1, messages: values.slice(i, i + 500).map((value) => ({ topic, key: 'k', value })) })
        }
      } finally {
        await producer.close()
      }
      const got = await kcatConsumeAll(broker.bootstrap, topic)
      assert.deepEqual(
        got.map((r) => r.value),
        values,
      )
      for (const b of await storedBatches(broker, topic)) assert.equal(b.header.compression, CODEC_ID[codec])
    })
  }

  test('LogAppendTime on a compressed batch: the broker stamps it and kcat reads the broker time', async () => {
    const topic = 'log-append-lz4'
    await createTopic(topic, [{ name: 'message.timestamp.type', value: 'LogAppendTime' }])
    // librdkafka sends a batch uncompressed when compressing would not make it smaller
    const values = ['a', 'b', 'c'].map((v) => v.repeat(1000))
    const before = Date.now()
    await kcatProduce(topic, 'lz4', values)
    const after = Date.now()
    const stored = await storedBatches(broker, topic)
    assert.equal(stored[0]!.header.compression, CompressionType.Lz4)
    assert.equal(stored[0]!.header.timestampType, 1, 'LogAppendTime attribute bit')
    const got = await kcatConsumeAll(broker.bootstrap, topic)
    assert.deepEqual(
      got.map((r) => r.value),
      values,
    )
    for (const r of got) assert.ok(r.timestamp >= before && r.timestamp <= after, `timestamp ${r.timestamp} within [${before}, ${after}]`)
  })

  test('compression.type=gzip recompresses a snappy batch; uncompressed decompresses a zstd one', async () => {
    await createTopic('recompress-gzip', [{ name: 'compression.type', value: 'gzip' }])
    const values = Array.from({ length: 500 }, (_, i) => recordValue('recompress', i))
    await kcatProduce('recompress-gzip', 'snappy', values)
    const gz = await storedBatches(broker, 'recompress-gzip')
    for (const b of gz) assert.equal(b.header.compression, CompressionType.Gzip, 'snappy batch stored as gzip')
    assert.deepEqual(
      gz.flatMap((b) => b.values),
      values,
    )
    assert.deepEqual(
      (await kcatConsumeAll(broker.bootstrap, 'recompress-gzip')).map((r) => r.value),
      values,
    )

    await createTopic('recompress-none', [{ name: 'compression.type', value: 'uncompressed' }])
    await kcatProduce('recompress-none', 'zstd', values)
    const plain = await storedBatches(broker, 'recompress-none')
    for (const b of plain) assert.equal(b.header.compression, CompressionType.None, 'zstd batch stored uncompressed')
    assert.deepEqual(
      plain.flatMap((b) => b.values),
      values,
    )
    assert.deepEqual(await kafkajsReadAll('recompress-none', values.length), values)

    // compression.type naming the producer's own codec keeps the producer's bytes
    await createTopic('keep-lz4', [{ name: 'compression.type', value: 'lz4' }])
    await kcatProduce('keep-lz4', 'lz4', values)
    for (const b of await storedBatches(broker, 'keep-lz4')) assert.equal(b.header.compression, CompressionType.Lz4)
  })

  const produceRaw = async (topic: string, records: Buffer, version = 9) => {
    const c = await RawClient.connect(broker.host, broker.port)
    try {
      const res = await c.request(ProduceRequest, ProduceResponse, version, {
        transactionalId: null,
        acks: -1,
        timeoutMs: 5_000,
        topicData: [{ name: topic, partitionData: [{ index: 0, records }] }],
      })
      return res.responses[0]!.partitionResponses[0]!
    } finally {
      c.close()
    }
  }

  test('refusals: codec 5, zstd before Produce v7, undecodable data', async () => {
    const topic = 'refusals'
    await createTopic(topic)
    const records = [{ key: null, value: Buffer.from('v') }]
    const five = batchWithSection(5, buildRecordBatch({ records }).subarray(BATCH_HEADER_SIZE))
    assert.equal((await produceRaw(topic, five)).errorCode, 76, 'codec 5: UNSUPPORTED_COMPRESSION_TYPE')
    const zstd = buildRecordBatch({ baseTimestamp: Date.now(), records, compression: CompressionType.Zstd })
    assert.equal((await produceRaw(topic, zstd, 6)).errorCode, 76, 'zstd with Produce v6: UNSUPPORTED_COMPRESSION_TYPE')
    assert.equal((await produceRaw(topic, zstd, 7)).errorCode, 0, 'zstd with Produce v7')
    const garbage = batchWithSection(CompressionType.Gzip, Buffer.from('this is not gzip data at all'))
    assert.equal((await produceRaw(topic, garbage)).errorCode, 2, 'undecodable gzip: CORRUPT_MESSAGE')
    const truncated = compress(CompressionType.Lz4, Buffer.alloc(10_000, 1))
    assert.equal((await produceRaw(topic, batchWithSection(CompressionType.Lz4, truncated.subarray(0, truncated.length - 9)))).errorCode, 2)
  })

  test('compression bombs are refused with INVALID_RECORD and the broker memory stays bounded', async () => {
    const topic = 'bombs'
    await createTopic(topic)
    const gzipBomb = await gzipOfZeros(512 * MiB)
    assert.ok(gzipBomb.length < 1_000_000, `gzip bomb fits message.max.bytes (${gzipBomb.length} bytes)`)
    const zstdBomb = zstdRleBomb(8192) // 1 GiB
    // warm up the paths once with an ordinary compressed batch of each codec
    for (const codec of [CompressionType.Gzip, CompressionType.Zstd]) {
      const ok = buildRecordBatch({ baseTimestamp: Date.now(), records: [{ key: null, value: Buffer.alloc(1000, 3) }], compression: codec })
      assert.equal((await produceRaw(topic, ok)).errorCode, 0)
    }
    // Following either bomb would take 512 MiB or 1 GiB. Refusing it at the bound takes at most
    // the bound for the output decoded so far (plus, for zstd, WebAssembly memory of that size),
    // so each bomb may raise the broker's peak RSS by less than twice the bound.
    const hwmStart = peakRss(broker.pid)
    let hwm = hwmStart
    for (const [name, section] of [
      ['gzip', gzipBomb],
      ['zstd', zstdBomb],
    ] as const) {
      const codec = name === 'gzip' ? CompressionType.Gzip : CompressionType.Zstd
      const res = await produceRaw(topic, batchWithSection(codec, section, 1000))
      assert.equal(res.errorCode, 87, `${name} bomb: INVALID_RECORD (${res.errorMessage})`)
      assert.match(res.errorMessage ?? '', /tributary\.max\.decompressed\.batch\.bytes/)
      const now = peakRss(broker.pid)
      assert.ok(
        now - hwm < 2 * LIMIT,
        `${name} bomb raised the broker's peak RSS by ${((now - hwm) / MiB).toFixed(1)} MiB (bound ${LIMIT / MiB} MiB)`,
      )
      hwm = now
    }
    assert.ok(hwm - hwmStart < 3 * LIMIT, `both bombs raised the broker's peak RSS by ${((hwm - hwmStart) / MiB).toFixed(1)} MiB`)
    await assertServes(broker.host, broker.port)
    // nothing of the bombs was stored
    const stored = await storedBatches(broker, topic)
    assert.equal(stored.length, 2)
  })
})
