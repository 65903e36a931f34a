// The Producer against an in-process broker, and behind a proxy that can answer a Produce with an
// error, cut the connection, or never answer: partitioning as the Java client does, batching and
// reports, splitting a batch the broker finds too large, retries after NOT_LEADER_OR_FOLLOWER and a
// lost connection (stored once, in order), the delivery timeout, back-pressure, acks=0.
import assert from 'node:assert/strict'
import { type AddressInfo, createServer, type Server, type Socket, connect as tcpConnect } from 'node:net'
import { after, before, describe, it } from 'node:test'
import { createTopics, listOffsets, OffsetSpec } from '../../../src/client/admin.js'
import { KafkaClient } from '../../../src/client/client.js'
import { type DeliveryReport, Producer, type ProducerRecord } from '../../../src/client/producer.js'
import { type RunningBroker, silentLogger, startBroker } from '../../../src/index.js'
import { decodeRequestHeader, encodeResponseHeader, responseHeaderVersion } from '../../../src/protocol/header.js'
import { ProduceRequest, ProduceResponse } from '../../../src/protocol/messages/00-produce.js'
import { Writer } from '../../../src/protocol/primitives/writer.js'
import { javaPartition } from '../../helpers/clients.js'

interface Rec extends ProducerRecord {
  id: number
}

type Verdict = 'forward' | 'drop' | 'cut' | { errorCode: number }

/** A TCP proxy in front of the broker that lets the test decide the fate of each Produce request. */
class ProduceProxy {
  port = 0
  upstreamPort = 0
  produceRequests = 0
  metadataRequests = 0
  verdict: (n: number) => Verdict = () => 'forward'
  private server: Server | undefined
  private readonly sockets = new Set<Socket>()

  async listen(): Promise<void> {
    this.server = createServer((client) => this.onClient(client))
    await new Promise<void>((resolve) => this.server!.listen(0, '127.0.0.1', resolve))
    this.port = (this.server.address() as AddressInfo).port
  }

  private onClient(client: Socket): void {
    assert.notEqual(this.upstreamPort, this.port, 'the proxy must not connect to itself')
    const upstream = tcpConnect({ host: '127.0.0.1', port: this.upstreamPort })
    for (const s of [client, upstream]) {
      this.sockets.add(s)
      s.on('error', () => {})
      s.on('close', () => {
        this.sockets.delete(s)
        client.destroy()
        upstream.destroy()
      })
    }
    upstream.on('data', (b: Buffer) => client.write(b))
    let pending = Buffer.alloc(0)
    client.on('data', (chunk: Buffer) => {
      pending = Buffer.concat([pending, chunk])
      while (pending.length >= 4 && pending.length >= 4 + pending.readInt32BE(0)) {
        const frame = pending.subarray(0, 4 + pending.readInt32BE(0))
        pending = pending.subarray(frame.length)
        this.onFrame(frame, client, upstream)
      }
    })
  }

  private onFrame(frame: Buffer, client: Socket, upstream: Socket): void {
    const apiKey = frame.readInt16BE(4)
    if (apiKey === 3) this.metadataRequests++
    if (apiKey !== ProduceRequest.apiKey) {
      upstream.write(frame)
      return
    }
    const v = this.verdict(++this.produceRequests)
    if (v === 'forward') upstream.write(frame)
    else if (v === 'cut') client.destroy()
    else if (v !== 'drop') client.write(forgedProduceResponse(frame.subarray(4), v.errorCode))
  }

  async close(): Promise<void> {
    for (const s of this.sockets) s.destroy()
    await new Promise<void>((resolve) => this.server?.close(() => resolve()))
  }
}

/** A Produce response giving every partition of the request the error code. */
function forgedProduceResponse(frame: Buffer, errorCode: number): Buffer {
  const h = decodeRequestHeader(frame, (k, v) => ProduceRequest.isFlexible(v) && k === 0)
  const req = ProduceRequest.decode(h.apiVersion, frame.subarray(h.bodyOffset))
  const w = new Writer()
  encodeResponseHeader(w, h.correlationId, responseHeaderVersion(0, ProduceResponse.isFlexible(h.apiVersion)))
  const head = w.toBuffer()
  const body = ProduceResponse.encode(h.apiVersion, {
    responses: req.topicData.map((t) => ({
      name: t.name,
      topicId: t.topicId,
      partitionResponses: t.partitionData.map((p) => ({ index: p.index, errorCode, baseOffset: -1, recordErrors: [], errorMessage: null })),
    })),
  })
  const size = Buffer.alloc(4)
  size.writeInt32BE(head.length + body.length)
  return Buffer.concat([size, head, body])
}

/** A port that was free a moment ago. */
async function freePort(): Promise<number> {
  const s = createServer()
  await new Promise<void>((resolve) => s.listen(0, '127.0.0.1', resolve))
  const port = (s.address() as AddressInfo).port
  await new Promise<void>((resolve) => s.close(() => resolve()))
  return port
}

function collect(): { reports: DeliveryReport<Rec>[]; onDelivery: (r: DeliveryReport<Rec>) => void } {
  const reports: DeliveryReport<Rec>[] = []
  return { reports, onDelivery: (r) => reports.push(r) }
}

const value = (n: number, size = 10) => Buffer.from(`v${n}`.padEnd(size, '.'))

describe('Producer', () => {
  let broker: RunningBroker
  let client: KafkaClient
  before(async () => {
    broker = await startBroker({ port: 0, logger: silentLogger, config: { 'num.partitions': 3 } })
    client = await KafkaClient.connect({ bootstrap: [broker.bootstrap], clientId: 'producer-test' })
  })
  after(async () => {
    await client.close()
    await broker.close()
  })

  it('puts keyed records where the Java client would, in order, and reports each record once with its offset', async () => {
    const { reports, onDelivery } = collect()
    const producer = await Producer.create<Rec>(client, { topic: 'keyed', batchSizeBytes: 200, onDelivery })
    assert.equal(producer.partitionCount, 3)
    const sent: Rec[] = []
    for (let i = 0; i < 300; i++) {
      const r: Rec = { key: Buffer.from(`key-${i % 17}`), value: value(i), id: i }
      sent.push(r)
      assert.equal(producer.send(r), javaPartition(`key-${i % 17}`, 3))
    }
    assert.ok(producer.pendingRecords > 0)
    await producer.flush()
    assert.equal(producer.pendingRecords, 0)
    assert.equal(producer.bufferedBytes, 0)
    assert.ok(reports.every((r) => r.error === null))
    assert.ok(reports.length > 3, 'several batches per partition')
    const ids = reports.flatMap((r) => r.records.map((x) => x.id)).sort((a, b) => a - b)
    assert.deepEqual(
      ids,
      sent.map((r) => r.id),
    )
    for (let p = 0; p < 3; p++) {
      const mine = reports.filter((r) => r.partition === p).sort((a, b) => a.baseOffset - b.baseOffset)
      let next = 0
      for (const r of mine) {
        assert.equal(r.baseOffset, next, `partition ${p}: batches stored back to back`)
        next += r.records.length
      }
      const order = mine.flatMap((r) => r.records.map((x) => x.id))
      assert.deepEqual(
        order,
        [...order].sort((a, b) => a - b),
        `partition ${p}: in the order sent`,
      )
    }
    const latest = await listOffsets(client, 'keyed', null, OffsetSpec.Latest)
    assert.equal(
      [...latest.values()].reduce((a, b) => a + b, 0),
      300,
    )
    producer.close()
  })

  it('sends records without a key a batch at a time to one partition, then the next; an explicit partition wins', async () => {
    const { reports, onDelivery } = collect()
    const producer = await Producer.create<Rec>(client, { topic: 'unkeyed', batchSizeBytes: 1000, lingerMs: 0, onDelivery })
    const partitions: number[] = []
    for (let i = 0; i < 60; i++) partitions.push(producer.send({ key: null, value: value(i, 50), id: i }))
    assert.equal(new Set(partitions).size, 3, `spread over every partition: ${partitions}`)
    for (let i = 1; i < partitions.length; i++) {
      if (partitions[i] !== partitions[i - 1]) assert.equal(partitions[i], (partitions[i - 1]! + 1) % 3, 'moves round the ring')
    }
    assert.equal(producer.send({ key: Buffer.from('k'), value: value(99), id: 99, partition: 2 }), 2)
    assert.throws(() => producer.send({ key: null, value: value(1), id: 1, partition: 3 }), /has no partition 3/)
    await producer.flush()
    assert.equal(
      reports.reduce((n, r) => n + r.records.length, 0),
      61,
    )
    producer.close()
  })

  it('splits a batch the broker finds too large and fails only the record that is too large on its own', async () => {
    const [created] = await createTopics(client, [{ name: 'small-messages', numPartitions: 1, configs: { 'max.message.bytes': '2000' } }])
    assert.equal(created!.error, null)
    const { reports, onDelivery } = collect()
    const producer = await Producer.create<Rec>(client, { topic: 'small-messages', batchSizeBytes: 100_000, lingerMs: 50, onDelivery })
    for (let i = 0; i < 40; i++) producer.send({ key: null, value: value(i, 200), id: i })
    producer.send({ key: null, value: Buffer.alloc(5000, 1), id: 1000 })
    for (let i = 40; i < 45; i++) producer.send({ key: null, value: value(i, 200), id: i })
    await producer.flush()
    const failed = reports.filter((r) => r.error !== null)
    assert.deepEqual(
      failed.map((r) => [r.error!.code, r.records.map((x) => x.id)]),
      [['MESSAGE_TOO_LARGE', [1000]]],
    )
    const stored = reports.filter((r) => r.error === null).sort((a, b) => a.baseOffset - b.baseOffset)
    assert.ok(stored.length >= 4, 'the 9 KB batch was split into batches under 2000 bytes')
    assert.deepEqual(
      stored.flatMap((r) => r.records.map((x) => x.id)),
      Array.from({ length: 45 }, (_, i) => i),
      'every other record stored once, in order',
    )
    const latest = await listOffsets(client, 'small-messages', [0], OffsetSpec.Latest)
    assert.equal(latest.get(0), 45)
    producer.close()
  })

  it('holds the caller back once bufferMemoryBytes are unacknowledged, until acknowledgements free room', async () => {
    const { reports, onDelivery } = collect()
    const producer = await Producer.create<Rec>(client, { topic: 'pressure', bufferMemoryBytes: 4000, batchSizeBytes: 1000, onDelivery })
    let waits = 0
    for (let i = 0; i < 500; i++) {
      producer.send({ key: null, value: value(i, 100), id: i })
      if (producer.isFull) {
        waits++
        await producer.waitForSpace()
        assert.ok(!producer.isFull)
      }
    }
    await producer.flush()
    assert.ok(waits > 0, 'the buffer filled up')
    assert.equal(
      reports.reduce((n, r) => n + r.records.length, 0),
      500,
    )
    producer.close()
  })

  it('with acks=0 sends without waiting for answers, and the records are stored', async () => {
    const { reports, onDelivery } = collect()
    const producer = await Producer.create<Rec>(client, { topic: 'no-acks', acks: 0, onDelivery })
    for (let i = 0; i < 50; i++) producer.send({ key: Buffer.from(`k${i}`), value: value(i), id: i })
    await producer.flush()
    assert.ok(reports.every((r) => r.error === null && r.baseOffset === -1))
    const deadline = Date.now() + 20_000
    let total = 0
    while (total < 50 && Date.now() < deadline) {
      total = [...(await listOffsets(client, 'no-acks', null, OffsetSpec.Latest)).values()].reduce((a, b) => a + b, 0)
      if (total < 50) await new Promise((r) => setTimeout(r, 50))
    }
    assert.equal(total, 50)
    producer.close()
  })

  it('refuses a topic that does not exist when the broker does not create it', async () => {
    await assert.rejects(
      Producer.create(client, { topic: 'never-created', autoCreateTopic: false }),
      (e: Error & { code?: string }) => e.code === 'UNKNOWN_TOPIC_OR_PARTITION' && /does not exist/.test(e.message),
    )
  })
})

describe('Producer on a broker that does not create topics', () => {
  let broker: RunningBroker
  let client: KafkaClient
  before(async () => {
    broker = await startBroker({ port: 0, logger: silentLogger, config: { 'auto.create.topics.enable': false } })
    client = await KafkaClient.connect({ bootstrap: [broker.bootstrap] })
  })
  after(async () => {
    await client.close()
    await broker.close()
  })

  it('fails at once for a missing topic: the broker says auto.create.topics.enable=false, so there is nothing to wait for', async () => {
    // A KRaft Kafka answers UNKNOWN_TOPIC_OR_PARTITION while it creates a topic, so without the
    // broker's setting the producer would wait the whole topicWaitMs (10 minutes here).
    await assert.rejects(
      Producer.create(client, { topic: 'absent', autoCreateTopic: true, topicWaitMs: 600_000 }),
      (e: Error & { code?: string }) => e.code === 'UNKNOWN_TOPIC_OR_PARTITION' && /topic 'absent' does not exist/.test(e.message),
    )
  })
})

describe('Producer retries', () => {
  const proxy = new ProduceProxy()
  let broker: RunningBroker
  let client: KafkaClient
  before(async () => {
    await proxy.listen()
    // The broker advertises the proxy, so every connection of the client goes through it (its
    // RunningBroker.port is then the proxy's too: the port it binds is chosen here).
    const port = await freePort()
    proxy.upstreamPort = port
    broker = await startBroker({
      port,
      logger: silentLogger,
      config: { 'num.partitions': 1, 'advertised.listeners': `PLAINTEXT://127.0.0.1:${proxy.port}` },
    })
    client = await KafkaClient.connect({ bootstrap: [`127.0.0.1:${proxy.port}`], clientId: 'producer-retry-test', requestTimeoutMs: 1000 })
  })
  after(async () => {
    await client.close()
    await proxy.close()
    await broker.close()
  })

  it('retries NOT_LEADER_OR_FOLLOWER after refreshing the metadata; the batch is stored once, before the next', async () => {
    const { reports, onDelivery } = collect()
    const producer = await Producer.create<Rec>(client, { topic: 'moved', retryBackoffMs: 10, onDelivery })
    proxy.produceRequests = 0
    const metadataBefore = proxy.metadataRequests
    proxy.verdict = (n) => (n === 1 ? { errorCode: 6 } : 'forward')
    producer.send({ key: null, value: value(1), id: 1 })
    await new Promise((r) => setTimeout(r, 20))
    producer.send({ key: null, value: value(2), id: 2 })
    await producer.flush()
    assert.ok(proxy.produceRequests >= 2, 'the refused batch was sent again')
    assert.ok(proxy.metadataRequests > metadataBefore, 'metadata was fetched again')
    assert.ok(reports.every((r) => r.error === null))
    assert.deepEqual(
      reports.map((r) => [r.baseOffset, r.records.map((x) => x.id)]),
      reports.length === 1
        ? [[0, [1, 2]]]
        : [
            [0, [1]],
            [1, [2]],
          ],
    )
    producer.close()
  })

  it('sends a batch again after the connection is lost mid-request', async () => {
    const { reports, onDelivery } = collect()
    const producer = await Producer.create<Rec>(client, { topic: 'cut', retryBackoffMs: 10, onDelivery })
    proxy.produceRequests = 0
    proxy.verdict = (n) => (n === 1 ? 'cut' : 'forward')
    for (let i = 0; i < 5; i++) producer.send({ key: null, value: value(i), id: i })
    await producer.flush()
    assert.ok(proxy.produceRequests >= 2)
    assert.deepEqual(
      reports.map((r) => [r.error, r.baseOffset, r.records.length]),
      [[null, 0, 5]],
    )
    producer.close()
  })

  it('gives up after deliveryTimeoutMs with the last error, and reports the records as failed', async () => {
    const { reports, onDelivery } = collect()
    const producer = await Producer.create<Rec>(client, { topic: 'silent', deliveryTimeoutMs: 2500, retryBackoffMs: 10, onDelivery })
    proxy.verdict = () => 'drop'
    try {
      for (let i = 0; i < 3; i++) producer.send({ key: null, value: value(i), id: i })
      await producer.flush()
    } finally {
      proxy.verdict = () => 'forward'
    }
    assert.equal(reports.length, 1)
    assert.equal(reports[0]!.records.length, 3)
    assert.equal(reports[0]!.error?.code, 'REQUEST_TIMED_OUT')
    assert.match(reports[0]!.error!.message, /silent-0/)
    assert.equal(producer.pendingRecords, 0)
    producer.close()
  })
})
