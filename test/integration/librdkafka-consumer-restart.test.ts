// KIP-848 consumer groups survive a broker restart (src/coordinator/group/consumer/durable-groups.ts):
// two librdkafka consumers (confluent-kafka 2.16.1, group.protocol=consumer) share a 4-partition
// topic; the broker is stopped (SIGTERM) and started again on the same address and data while they
// run; the group comes back from `__consumer_offsets`, so they heartbeat on at their epochs —
// neither has a partition revoked or assigned after the restart — and they read every record
// produced after it. The script is test/interop/python/consumer-protocol.py's `restart` mode: it
// prints {"ev": "ready"} when the group has settled and waits for a line on stdin.
// Missing python3 or confluent_kafka fails this file (`pip install confluent-kafka==2.16.1`).
import assert from 'node:assert/strict'
import { spawn } from 'node:child_process'
import { createInterface } from 'node:readline'
import { after, describe, test } from 'node:test'
import { fileURLToPath } from 'node:url'
import { type BrokerProcess, makeTempDir, startBrokerProcess } from '../helpers/broker-process.js'

const SCRIPT = fileURLToPath(new URL('../../../test/interop/python/consumer-protocol.py', import.meta.url))
const PREFIX = 'it-rdk848r'
const OVERRIDES = { 'group.consumer.session.timeout.ms': '10000', 'group.consumer.heartbeat.interval.ms': '1000' }

interface Report {
  exception?: string
  settled: boolean
  drained: boolean
  delivery_failures: string[]
  consumed_distinct: number
  moves_after_restart: unknown[]
  owned_before: Array<Array<[string, number]>>
  owned_after: Array<Array<[string, number]>>
}

describe('KIP-848 consumer groups across a broker restart: librdkafka members heartbeat on', () => {
  const dir = makeTempDir('tributary-cg-restart-')
  let broker: BrokerProcess | undefined

  after(async () => {
    if (broker) {
      await broker.stop().catch(() => {})
      await broker.cleanup()
    }
    dir.remove()
  })

  test('no rejoin, no revocation, every record read', { timeout: 240_000 }, async () => {
    broker = await startBrokerProcess({ dataDir: dir.path, overrides: OVERRIDES })
    const port = broker.port
    const child = spawn('python3', [SCRIPT, broker.bootstrap, PREFIX, 'restart'], { stdio: ['pipe', 'pipe', 'pipe'] })
    let stderr = ''
    child.stderr.setEncoding('utf8')
    child.stderr.on('data', (s: string) => {
      stderr = (stderr + s).slice(-20_000)
    })
    const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)))
    child.once('error', (err) => {
      stderr += `\n${err.message} (install Python 3, then: pip install confluent-kafka==2.16.1)`
    })
    const lines: string[] = []
    const killer = setTimeout(() => child.kill('SIGKILL'), 220_000)
    try {
      for await (const line of createInterface({ input: child.stdout })) {
        lines.push(line)
        if (!line.includes('"ready"')) continue
        assert.equal(await broker.stop(), 0, 'the broker stops cleanly')
        broker = await startBrokerProcess({ dataDir: dir.path, overrides: { ...OVERRIDES, listeners: `PLAINTEXT://127.0.0.1:${port}` } })
        child.stdin.write('\n')
      }
      const code = await exited
      const context = () => `exit ${code}\nstdout:\n${lines.join('\n')}\nstderr tail:\n${stderr.slice(-4000)}`
      assert.equal(code, 0, `consumer-protocol.py restart failed: ${context()}`)
      assert.ok(
        lines.some((l) => l.includes('"ready"')),
        `the group never settled: ${context()}`,
      )
      const r = JSON.parse(lines.at(-1)!) as Report
      console.log(JSON.stringify(r))
      assert.equal(r.exception, undefined, `restart: ${r.exception}`)
      assert.ok(r.settled)
      assert.deepEqual(r.delivery_failures, [])
      assert.ok(r.drained, `only ${r.consumed_distinct} of 1000 records read after the restart: ${context()}`)
      assert.deepEqual(r.moves_after_restart, [], 'no partition revoked or assigned after the restart (no rejoin)')
      assert.deepEqual(r.owned_after, r.owned_before)
      assert.ok(broker.alive(), 'broker died during the run')
    } finally {
      clearTimeout(killer)
      child.kill('SIGKILL')
    }
  })
})
