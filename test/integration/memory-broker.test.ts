// startBroker({ storage: 'memory' }): a real broker inside the test process whose logs and
// metadata live in memory. kafkajs produces, consumes and runs a consumer group against it; two
// such brokers in one process share nothing; and a broker in a child process with its own empty
// TMPDIR and working directory, its file system functions spied on, is shown to touch no file
// while clients use it. close() is prompt even with a long-poll Fetch parked.
import assert from 'node:assert/strict'
import { spawn } from 'node:child_process'
import { mkdtempSync, readdirSync, rmSync } from 'node:fs'
import { createConnection } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { createInterface } from 'node:readline'
import { describe, test } from 'node:test'
import { Admin } from '@platformatic/kafka'
import { Kafka, logLevel, Partitioners } from 'kafkajs'
import { MEMORY_DATA_DIR, type RunningBroker, startBroker } from '../../src/index.js'
import { FetchRequest, FetchResponse } from '../../src/protocol/messages/01-fetch.js'
import { CreateTopicsRequest, CreateTopicsResponse } from '../../src/protocol/messages/19-create-topics.js'
import { assertServes, RawClient, waitFor } from '../helpers/clients.js'

const INDEX_JS = new URL('../../src/index.js', import.meta.url).href

function kafkaFor(broker: RunningBroker, clientId = 'it-memory'): Kafka {
  return new Kafka({ clientId, brokers: [broker.bootstrap], logLevel: logLevel.NOTHING, retry: { retries: 5, initialRetryTime: 100 } })
}

async function produce(kafka: Kafka, topic: string, values: string[]): Promise<void> {
  const producer = kafka.producer({ createPartitioner: Partitioners.DefaultPartitioner })
  await producer.connect()
  try {
    await producer.send({ topic, acks: -1, messages: values.map((value, i) => ({ key: `k${i}`, value })) })
  } finally {
    await producer.disconnect()
  }
}

/** Runs a kafkajs group consumer until it has received `count` records; returns their values. */
async function consumeInGroup(kafka: Kafka, topic: string, groupId: string, count: number): Promise<string[]> {
  const consumer = kafka.consumer({ groupId, sessionTimeout: 10_000, heartbeatInterval: 500, maxWaitTimeInMs: 200 })
  await consumer.connect()
  const got: string[] = []
  try {
    await consumer.subscribe({ topic, fromBeginning: true })
    await consumer.run({
      eachMessage: async ({ message }) => {
        got.push(message.value!.toString())
      },
    })
    await waitFor(() => got.length >= count, `${count} records in group ${groupId}`, 60_000)
  } finally {
    // Stopping commits the offsets of what was processed.
    await consumer.disconnect()
  }
  return got
}

function refused(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const s = createConnection(port, '127.0.0.1')
    s.once('connect', () => {
      s.destroy()
      resolve(false)
    })
    s.once('error', () => resolve(true))
  })
}

describe('startBroker({ storage: "memory" })', () => {
  test('kafkajs produces, consumes in a group, and a new member resumes from the committed offsets', async () => {
    const broker = await startBroker({ storage: 'memory' })
    try {
      assert.equal(broker.dataDir, MEMORY_DATA_DIR)
      assert.ok(broker.port > 0 && broker.port !== 9092, `a free port by default, got ${broker.port}`)
      assert.equal(broker.bootstrap, `127.0.0.1:${broker.port}`)

      const kafka = kafkaFor(broker)
      const admin = kafka.admin()
      await admin.connect()
      try {
        await admin.createTopics({ topics: [{ topic: 'orders', numPartitions: 2 }], waitForLeaders: true })
        const first = Array.from({ length: 10 }, (_, i) => `order-${i}`)
        await produce(kafka, 'orders', first)
        const offsets = await admin.fetchTopicOffsets('orders')
        assert.equal(
          offsets.reduce((n, p) => n + Number(p.high), 0),
          10,
        )

        const got = await consumeInGroup(kafka, 'orders', 'billing', 10)
        assert.deepEqual(got.sort(), first.sort())
        const committed = await admin.fetchOffsets({ groupId: 'billing', topics: ['orders'] })
        assert.equal(
          committed[0]!.partitions.reduce((n, p) => n + Number(p.offset), 0),
          10,
        )

        const second = Array.from({ length: 5 }, (_, i) => `later-${i}`)
        await produce(kafka, 'orders', second)
        const resumed = await consumeInGroup(kafka, 'orders', 'billing', 5)
        assert.deepEqual(resumed.sort(), second.sort(), 'the group resumes after its committed offsets')
        const groups = await admin.listGroups()
        assert.deepEqual(
          groups.groups.map((g) => g.groupId),
          ['billing'],
        )
      } finally {
        await admin.disconnect()
      }
    } finally {
      await broker.close()
    }
    assert.ok(await refused(broker.port), 'close() stops the listener')
    await broker.close()
  })

  test('two memory brokers in one process are independent', async () => {
    const a = await startBroker({ storage: 'memory' })
    const b = await startBroker({ storage: 'memory', config: { 'num.partitions': 3 } })
    try {
      assert.notEqual(a.port, b.port)
      const ka = kafkaFor(a)
      const kb = kafkaFor(b)
      await produce(ka, 'shared-name', ['from-a'])
      await produce(kb, 'shared-name', ['from-b-1', 'from-b-2'])
      await produce(kb, 'only-on-b', ['x'])

      const aa = ka.admin()
      const ab = kb.admin()
      await aa.connect()
      await ab.connect()
      try {
        assert.deepEqual((await aa.listTopics()).sort(), ['shared-name'])
        assert.deepEqual((await ab.listTopics()).sort(), ['only-on-b', 'shared-name'])
        const [ma, mb] = [
          await aa.fetchTopicMetadata({ topics: ['shared-name'] }),
          await ab.fetchTopicMetadata({ topics: ['shared-name'] }),
        ]
        assert.equal(ma.topics[0]!.partitions.length, 1)
        assert.equal(mb.topics[0]!.partitions.length, 3)
        const sum = (os: Array<{ high: string }>) => os.reduce((n, p) => n + Number(p.high), 0)
        assert.equal(sum(await aa.fetchTopicOffsets('shared-name')), 1)
        assert.equal(sum(await ab.fetchTopicOffsets('shared-name')), 2)
        const [ca, cb] = [await aa.describeCluster(), await ab.describeCluster()]
        assert.notEqual(ca.clusterId, cb.clusterId)
      } finally {
        await aa.disconnect()
        await ab.disconnect()
      }
      await a.close()
      // b keeps working after a is gone.
      await produce(kb, 'only-on-b', ['y'])
      assert.deepEqual(await consumeInGroup(kb, 'only-on-b', 'g', 2).then((v) => v.sort()), ['x', 'y'])
    } finally {
      await a.close()
      await b.close()
    }
  })

  test('close() answers a parked long-poll Fetch at once instead of holding the shutdown', async () => {
    const broker = await startBroker({ storage: 'memory' })
    const client = await RawClient.connect(broker.host, broker.port)
    try {
      const created = await client.request(CreateTopicsRequest, CreateTopicsResponse, 7, {
        topics: [{ name: 'quiet', numPartitions: 1, replicationFactor: 1, assignments: [], configs: [] }],
        timeoutMs: 5000,
      })
      assert.equal(created.topics[0]!.errorCode, 0)
      // Nothing to read and a wait far beyond the shutdown grace period (5 s): before the fix the
      // connection was cut after the grace period, without an answer.
      client.sendRequest(FetchRequest, 12, {
        maxWaitMs: 120_000,
        minBytes: 1,
        maxBytes: 1 << 20,
        sessionId: 0,
        sessionEpoch: -1,
        topics: [{ topic: 'quiet', partitions: [{ partition: 0, fetchOffset: 0, partitionMaxBytes: 1 << 20 }] }],
      })
      // A round trip on another connection: the broker (in this process) has read the Fetch by then.
      await assertServes(broker.host, broker.port)
      await broker.close()
      const frame = await client.nextFrame(60_000)
      const res = FetchResponse.decode(12, frame.subarray(5)) // header v1: correlation id + empty tags
      assert.equal(res.errorCode, 0)
      assert.equal(res.responses[0]!.partitions[0]!.errorCode, 0)
      assert.equal(res.responses[0]!.partitions[0]!.highWatermark, 0)
      await client.closed
    } finally {
      client.close()
      await broker.close()
    }
  })

  test('a memory broker given a port or listeners uses them; dataDir is refused', async () => {
    await assert.rejects(startBroker({ storage: 'memory', dataDir: '/tmp/x' }), /dataDir is for storage: 'disk'/)
    await assert.rejects(startBroker({ storage: 'nvme' as 'disk' }), /storage must be 'disk' or 'memory'/)
    const probe = await startBroker({ storage: 'memory' })
    const port = probe.port
    await probe.close()
    const broker = await startBroker({ storage: 'memory', config: { listeners: `PLAINTEXT://127.0.0.1:${port}` } })
    try {
      assert.equal(broker.port, port)
    } finally {
      await broker.close()
    }
  })

  test('nothing touches the disk: no file opened or created, TMPDIR and the working directory stay empty', async (t) => {
    const tmp = mkdtempSync(join(tmpdir(), 'tributary-memtest-tmp-'))
    const cwd = mkdtempSync(join(tmpdir(), 'tributary-memtest-cwd-'))
    t.after(() => {
      rmSync(tmp, { recursive: true, force: true })
      rmSync(cwd, { recursive: true, force: true })
    })
    // The child loads the package, then replaces every file system function that names a path
    // (fs, fs/promises, sync and callback forms) by a recorder, starts a memory broker, prints its
    // address, and on 'stop' closes it and prints what was called.
    const child = spawn(process.execPath, ['--input-type=module', '-e', CHILD_SCRIPT], {
      cwd,
      env: { ...process.env, TMPDIR: tmp, MEMORY_TEST_INDEX: INDEX_JS },
      stdio: ['pipe', 'pipe', 'inherit'],
    })
    const lines = createInterface({ input: child.stdout! })[Symbol.asyncIterator]()
    const next = async (): Promise<any> => {
      const r = await lines.next()
      assert.ok(!r.done, 'the child ended early')
      return JSON.parse(r.value)
    }
    try {
      const { bootstrap } = await next()
      const kafka = new Kafka({ clientId: 'it-memory-nofs', brokers: [bootstrap], logLevel: logLevel.NOTHING })
      await produce(kafka, 'events', ['a', 'b', 'c'])
      assert.deepEqual((await consumeInGroup(kafka, 'events', 'readers', 3)).sort(), ['a', 'b', 'c'])
      // DescribeLogDirs reports sizes from memory and no volume (it must not statfs a path).
      const admin = new Admin({ clientId: 'it-memory-logdirs', bootstrapBrokers: [bootstrap] })
      try {
        const [b] = await admin.describeLogDirs({ topics: [{ name: 'events', partitions: [0] }] })
        const dir = b!.results[0]!
        assert.equal(dir.logDir, MEMORY_DATA_DIR)
        assert.equal(dir.totalBytes, -1n)
        assert.ok(Number(dir.topics[0]!.partitions[0]!.partitionSize) > 0, 'the partition holds the records')
      } finally {
        await admin.close()
      }
      child.stdin!.end('stop\n')
      const report: { calls: string[]; dataDir: string } = await next()
      assert.equal(report.dataDir, MEMORY_DATA_DIR)
      assert.deepEqual(report.calls, [], 'file system calls made by the broker')
    } finally {
      child.stdin!.end()
      if (child.exitCode === null) await new Promise((r) => child.once('exit', r))
    }
    assert.equal(child.exitCode, 0)
    assert.deepEqual(readdirSync(tmp), [], 'TMPDIR stays empty')
    assert.deepEqual(readdirSync(cwd), [], 'the working directory stays empty')
  })
})

const CHILD_SCRIPT = `
import fs from 'node:fs'
import fsp from 'node:fs/promises'
import { syncBuiltinESMExports } from 'node:module'
const { startBroker } = await import(process.env.MEMORY_TEST_INDEX)
const calls = []
const spy = (obj, label) => {
  for (const name of Object.keys(obj)) {
    const fn = obj[name]
    if (typeof fn !== 'function' || /^[A-Z]/.test(name) || name === 'watch' || name === 'constants') continue
    obj[name] = function (...args) {
      const path = typeof args[0] === 'string' || args[0] instanceof URL ? String(args[0]) : ''
      calls.push(label + name + ' ' + path)
      return fn.apply(this, args)
    }
  }
}
spy(fs, 'fs.')
spy(fsp, 'fs/promises.')
syncBuiltinESMExports()
const broker = await startBroker({ storage: 'memory' })
console.log(JSON.stringify({ bootstrap: broker.bootstrap }))
process.stdin.setEncoding('utf8')
let input = ''
for await (const chunk of process.stdin) {
  input += chunk
  if (input.includes('stop')) break
}
await broker.close()
console.log(JSON.stringify({ calls, dataDir: broker.dataDir }))
`
