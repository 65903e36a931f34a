// A current librdkafka (the one inside confluent-kafka's wheel, 2.12 or later) against a real broker
// process, without a single disconnect. librdkafka 2.12+ sends every all-topics Metadata v12 request
// with three bytes after its body (its 4-byte array-count placeholder); Kafka ignores them, and so
// must we — closing on them cut off every such client ("Broker transport failure") as soon as it
// listed topics, subscribed by regex or refreshed its metadata.
// test/interop/python/librdkafka-workload.py runs the workload and reports librdkafka's own log of
// disconnects; the broker's log must show no protocol close either.
// Missing python3 or confluent_kafka fails this file (`pip install confluent-kafka==2.16.1`); it
// never skips.
import assert from 'node:assert/strict'
import { connect } from 'node:net'
import { after, before, describe, test } from 'node:test'
import { fileURLToPath } from 'node:url'
import { type BrokerProcess, startBrokerProcess, stopAndCheck } from '../helpers/broker-process.js'
import { lastJsonLine, runProcess, show } from '../helpers/run-process.js'

const SCRIPT = fileURLToPath(new URL('../../../test/interop/python/librdkafka-workload.py', import.meta.url))
const INSTALL_HINT = 'install Python 3, then: pip install confluent-kafka==2.16.1'
const PREFIX = 'it-rdk-'
const PER_TOPIC = 2000

interface Workload {
  librdkafka: string
  topics_before: string[]
  delivered: number
  delivery_failures: string[]
  consumed_distinct: number
  assignment_topics: string[]
  groups: string[]
  group_state: string
  topics_after: string[]
  transactions: { result: string; code?: string }
  disconnects: string[]
  errors: string[]
}

/** Sends one frame (size prefix added) on a fresh connection; resolves with the response frame. */
function roundTrip(host: string, port: number, frame: Buffer): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, host)
    let buf = Buffer.alloc(0)
    const prefix = Buffer.alloc(4)
    prefix.writeInt32BE(frame.length, 0)
    socket.on('connect', () => socket.write(Buffer.concat([prefix, frame])))
    socket.on('data', (d: Buffer) => {
      buf = Buffer.concat([buf, d])
      if (buf.length >= 4 && buf.length >= 4 + buf.readInt32BE(0)) {
        socket.destroy()
        resolve(buf.subarray(4, 4 + buf.readInt32BE(0)))
      }
    })
    socket.on('error', reject)
    socket.on('close', () => reject(new Error(`connection closed after ${buf.length} bytes, before a whole response`)))
    socket.setTimeout(10_000, () => socket.destroy(new Error('no response within 10 s')))
  })
}

describe('librdkafka 2.12+ (confluent-kafka)', () => {
  let broker: BrokerProcess | undefined

  before(async () => {
    broker = await startBrokerProcess()
  })

  after(async () => {
    await stopAndCheck(broker)
  })

  test('the exact all-topics Metadata v12 request librdkafka sends is answered over a socket', async () => {
    // Captured from confluent-kafka 2.16.1 listing topics (see test/unit/handlers/dispatcher.test.ts).
    const frame = Buffer.from('0003000c00000003000772646b61666b610000000000010000', 'hex')
    const res = await roundTrip(broker!.host, broker!.port, frame)
    assert.equal(res.readInt32BE(0), 3, 'correlation id')
    assert.ok(res.length > 10, 'a Metadata response body follows')
  })

  test('lists all topics, subscribes by regex and runs a produce/consume/group workload without a disconnect', {
    timeout: 180_000,
  }, async () => {
    const r = await runProcess('python3', [SCRIPT, broker!.bootstrap, PREFIX], { timeoutMs: 150_000, installHint: INSTALL_HINT })
    const context = () => `${show(r)}\nbroker stderr tail:\n${broker!.stderr().slice(-4000)}`
    assert.equal(r.code, 0, `librdkafka-workload.py failed: ${context()}`)
    const w = lastJsonLine<Workload>(r, 'librdkafka-workload.py')
    const [major, minor] = w.librdkafka.split('.').map(Number)
    assert.ok(major! > 2 || (major === 2 && minor! >= 12), `librdkafka ${w.librdkafka} is older than 2.12: the test would prove nothing`)
    assert.deepEqual(w.disconnects, [], 'librdkafka logged no disconnect')
    assert.deepEqual(w.errors, [], 'librdkafka reported no transport error')
    assert.ok(Array.isArray(w.topics_before), 'all-topics metadata answered')
    assert.equal(w.delivered, PER_TOPIC * 3, `deliveries: ${JSON.stringify(w.delivery_failures)}`)
    assert.equal(w.consumed_distinct, PER_TOPIC * 3, 'the regex subscription read every record')
    assert.deepEqual(w.assignment_topics, [`${PREFIX}0`, `${PREFIX}1`, `${PREFIX}2`])
    assert.ok(w.groups.includes(`${PREFIX}group`), `groups: ${w.groups}`)
    assert.equal(w.group_state, 'ConsumerGroupState.EMPTY')
    assert.deepEqual(w.topics_after, [`${PREFIX}0`, `${PREFIX}1`, `${PREFIX}2`])
    assert.equal(w.transactions.result, 'committed', `transactions: ${JSON.stringify(w.transactions)}`)
    assert.doesNotMatch(broker!.stderr(), /closing connection/, 'the broker closed no connection')
  })
})
