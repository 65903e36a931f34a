// A `tributary start` process whose log dir fails halts, as Kafka's broker does when its only log
// dir goes offline, instead of staying up as the leader of partitions whose logs refuse every
// produce and fetch (the chaos run's disk nemesis found a cluster stalled so). The broker runs
// test/chaos/faulty-broker-main.ts (the command's start, with a FaultyFs): records are
// acknowledged, then the disk fails with EIO and the next produce fails the log — the process
// exits 1 and says why — and, the disk healed, a restart on the same data dir serves every record
// acknowledged before the failure.
import assert from 'node:assert/strict'
import { mkdtempSync, renameSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { after, describe, it } from 'node:test'
import { Kafka, logLevel } from 'kafkajs'
import { type BrokerProcess, makeTempDir, startBrokerProcess } from '../helpers/broker-process.js'
import { waitFor } from '../helpers/clients.js'
import { DISK_FAULT_FILE_ENV, type DiskMode } from '../chaos/faulty-fs.js'

const MAIN = fileURLToPath(new URL('../chaos/faulty-broker-main.js', import.meta.url))
const TOPIC = 'disk'

const data = makeTempDir('tributary-logdir-')
const control = mkdtempSync(join(tmpdir(), 'tributary-logdir-control-'))
const controlFile = join(control, 'mode')
const brokers: BrokerProcess[] = []

after(async () => {
  for (const b of brokers) await b.cleanup()
  data.remove()
  rmSync(control, { recursive: true, force: true })
})

function setDisk(b: BrokerProcess, mode: DiskMode): void {
  writeFileSync(`${controlFile}.tmp`, mode)
  renameSync(`${controlFile}.tmp`, controlFile)
  process.kill(b.pid, 'SIGUSR2')
}

async function start(): Promise<BrokerProcess> {
  const b = await startBrokerProcess({ main: MAIN, dataDir: data.path, env: { [DISK_FAULT_FILE_ENV]: controlFile } })
  brokers.push(b)
  return b
}

const kafka = (b: BrokerProcess) =>
  new Kafka({ clientId: 'log-dir-failure', brokers: [b.bootstrap], logLevel: logLevel.NOTHING, retry: { retries: 2 } })

describe('log dir failure of a tributary start process', () => {
  it('halts with exit code 1; restarted, it serves what it acknowledged', { timeout: 120_000 }, async () => {
    const b = await start()
    const admin = kafka(b).admin()
    await admin.connect()
    await admin.createTopics({ topics: [{ topic: TOPIC, numPartitions: 1 }] })
    await admin.disconnect()
    const producer = kafka(b).producer()
    await producer.connect()
    const acked: string[] = []
    for (let i = 0; i < 20; i++) {
      await producer.send({ topic: TOPIC, acks: -1, messages: [{ value: `v${i}` }] })
      acked.push(`v${i}`)
    }

    setDisk(b, 'eio')
    await waitFor(() => b.stderr().includes('disk fault mode: eio'), 'the broker to take the fault', 10_000)
    await producer.send({ topic: TOPIC, acks: -1, messages: [{ value: 'lost' }] }).catch(() => {})
    await producer.disconnect().catch(() => {})
    await waitFor(() => !b.alive(), 'the broker to halt', 30_000)
    assert.equal(await b.stop(), 1, `exit code; stderr:\n${b.stderr().slice(-3000)}`)
    assert.match(b.stderr(), /log dir failed/)

    writeFileSync(controlFile, 'none')
    const again = await start()
    const consumer = kafka(again).consumer({ groupId: 'log-dir-failure' })
    await consumer.connect()
    await consumer.subscribe({ topic: TOPIC, fromBeginning: true })
    const read: string[] = []
    await consumer.run({ eachMessage: async ({ message }) => void read.push(message.value!.toString()) })
    await waitFor(() => read.length >= acked.length, `the ${acked.length} acknowledged records (read ${read.length})`, 60_000)
    await consumer.disconnect()
    assert.deepEqual(read.slice(0, acked.length), acked)
    assert.equal(await again.stop(), 0)
  })
})
