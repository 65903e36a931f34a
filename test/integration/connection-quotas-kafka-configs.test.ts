// The connection quotas changed at run time (KIP-226: Kafka's DynamicConnectionQuota and
// ListenerConnectionQuota) with Kafka's own kafka-configs (org.apache.kafka.tools.ConfigCommand,
// Kafka 4.4's jars), against a `tributary start` process:
// - the same script of alter / describe / refused values run against Apache Kafka 4.4 and against
//   Tributary exits the same way, prints the same describe lines and fails with the same
//   exception class (INVALID_REQUEST for a bad value, as Kafka's ConfigAdminManager answers);
// - max.connection.creation.rate=2 set as the cluster-wide default makes a burst of new
//   connections wait for the acceptor (fewer answered within a window, none closed), and once it
//   is deleted a burst gets in without any wait (the acceptor's throttle counter stays put);
// - max.connections.per.ip=3 set on broker 1 closes the 4th connection from 127.0.0.1 at once,
//   keeps the 3 open, and once deleted lets more in.
// Missing Java or Maven fails this file; it never skips.
import assert from 'node:assert/strict'
import { after, before, describe, test } from 'node:test'
import { ApiVersionsRequest, ApiVersionsResponse } from '../../src/protocol/messages/18-api-versions.js'
import { type ApacheKafka, runKafkaTool, startApacheKafka } from '../helpers/apache-kafka.js'
import { type BrokerProcess, startBrokerProcess } from '../helpers/broker-process.js'
import { RawClient } from '../helpers/clients.js'

const B1 = ['--entity-type', 'brokers', '--entity-name', '1']
const BD = ['--entity-type', 'brokers', '--entity-default']

const SCRIPT: string[][] = [
  ['--alter', ...BD, '--add-config', 'max.connection.creation.rate=50'],
  ['--alter', ...B1, '--add-config', 'max.connections.per.ip=40,max.connections.per.ip.overrides=[10.9.9.9:2,::7:3]'],
  ['--alter', ...B1, '--add-config', 'listener.name.plaintext.max.connections=500'],
  ['--alter', ...BD, '--add-config', 'listener.name.plaintext.max.connection.creation.rate=1000'],
  ['--describe', ...B1],
  ['--describe', ...BD],
  ['--alter', ...B1, '--add-config', 'max.connections=-1'],
  ['--alter', ...BD, '--add-config', 'max.connections.per.ip=-1'],
  ['--alter', ...BD, '--add-config', 'max.connection.creation.rate=fast'],
  ['--alter', ...B1, '--add-config', 'max.connections.per.ip.overrides=abc'],
  ['--alter', ...B1, '--add-config', 'listener.name.plaintext.max.connections=-2'],
  ['--alter', ...BD, '--delete-config', 'max.connection.creation.rate,listener.name.plaintext.max.connection.creation.rate'],
  ['--alter', ...B1, '--delete-config', 'max.connections.per.ip,max.connections.per.ip.overrides,listener.name.plaintext.max.connections'],
  ['--describe', ...B1],
  ['--describe', ...BD],
]

interface Outcome {
  code: number | null
  /** What the tool printed, sorted, without error lines (and the test harness's own default). */
  stdout: string[]
  /** The Kafka exception classes the tool reported. */
  errors: string[]
}

function outcome(r: { code: number | null; stdout: string; stderr: string }): Outcome {
  const lines = (s: string) => s.split(/\r?\n/).filter((l) => l.trim() !== '' && !/^\s+at /.test(l))
  return {
    code: r.code,
    stdout: lines(r.stdout)
      .filter((l) => !/Error|Exception/.test(l) && !l.includes('min.insync.replicas'))
      .sort(),
    errors: [...new Set([...(r.stdout + r.stderr).matchAll(/org\.apache\.kafka\.common\.errors\.(\w+)/g)].map((m) => m[1]!))].sort(),
  }
}

/** A counter's value in the /metrics exposition (0 when the series is absent). */
function counterValue(exposition: string, series: string): number {
  const line = exposition.split('\n').find((l) => l.startsWith(`${series} `))
  return line === undefined ? 0 : Number(line.slice(series.length + 1))
}

const THROTTLED = 'kafka_network_acceptor_throttled_connections_total{listener="PLAINTEXT"}'
const LIMIT_CLOSES = 'tributary_network_protocol_closes_total{listener="PLAINTEXT",kind="connection-limit"}'

describe('kafka-configs changes the connection quotas of a running broker (KIP-226)', () => {
  let broker: BrokerProcess
  let kafka: ApacheKafka | undefined

  before(async () => {
    // quota.window.num=2: a rate is measured over at least one 1 s window (Kafka's default 11
    // would let (11 − 1) × rate connections in before the first wait).
    broker = await startBrokerProcess({ overrides: { 'node.id': '1', 'quota.window.num': '2' } })
  })
  after(async () => {
    await kafka?.stop()
    await broker?.cleanup()
  })

  const configs = (bootstrap: string, args: string[]) =>
    runKafkaTool('org.apache.kafka.tools.ConfigCommand', ['--bootstrap-server', bootstrap, ...args])
  const metrics = async () => (await fetch(`${broker.http}/metrics`)).text()
  const ok = async (args: string[]) => {
    const r = await configs(broker.bootstrap, args)
    assert.equal(r.code, 0, `kafka-configs ${args.join(' ')}:\n${r.stdout}${r.stderr}`)
    return r.stdout
  }

  /** Opens n connections at once and sends ApiVersions on each; how many were answered within windowMs, then in all. */
  async function burst(n: number, windowMs: number): Promise<{ inWindow: number; answered: number }> {
    const clients = await Promise.all(Array.from({ length: n }, () => RawClient.connect(broker.host, broker.port)))
    let answered = 0
    const started = Date.now()
    let inWindow = -1
    const window = new Promise<void>((resolve) =>
      setTimeout(() => {
        inWindow = answered
        resolve()
      }, windowMs),
    )
    try {
      await Promise.all(
        clients.map(async (c) => {
          const res = await c.request(ApiVersionsRequest, ApiVersionsResponse, 3, {
            clientSoftwareName: 'it-conn-quotas',
            clientSoftwareVersion: '1',
          })
          assert.equal(res.errorCode, 0)
          answered++
        }),
      )
      await window
      console.log(`connection-quotas: ${answered}/${n} answered, ${inWindow} within ${windowMs} ms (all in ${Date.now() - started} ms)`)
      return { inWindow, answered }
    } finally {
      for (const c of clients) c.close()
    }
  }

  test('the same kafka-configs script: the same exits, describe lines and exceptions as Apache Kafka 4.4', {
    timeout: 20 * 60_000,
  }, async () => {
    kafka = await startApacheKafka()
    for (const args of SCRIPT) {
      const theirs = outcome(await configs(kafka.bootstrap, args))
      const ours = outcome(await configs(broker.bootstrap, args))
      console.log(`connection-quotas-kafka-configs: ${args.join(' ')} → exit ${theirs.code} ${theirs.errors.join(' ')}`)
      assert.deepEqual(ours, theirs, `kafka-configs ${args.join(' ')}`)
    }
    // A refused value is INVALID_REQUEST naming the key, as Kafka answers.
    const refused = await configs(broker.bootstrap, ['--alter', ...B1, '--add-config', 'max.connections=-1'])
    assert.match(refused.stdout + refused.stderr, /InvalidRequestException: .*max\.connections/)
  })

  test('max.connection.creation.rate=2 as the cluster-wide default: a burst waits; deleted, it does not', {
    timeout: 5 * 60_000,
  }, async () => {
    // Unthrottled first: 10 connections at once are all answered and nothing waits.
    const before0 = counterValue(await metrics(), THROTTLED)
    assert.equal((await burst(10, 1500)).answered, 10)
    assert.equal(counterValue(await metrics(), THROTTLED), before0, 'no wait without a rate')

    await ok(['--alter', ...BD, '--add-config', 'max.connection.creation.rate=2'])
    const shown = await ok(['--describe', ...BD])
    assert.match(
      shown,
      /max\.connection\.creation\.rate=2 sensitive=false synonyms=\{DYNAMIC_DEFAULT_BROKER_CONFIG:max\.connection\.creation\.rate=2\}/,
    )
    const before1 = counterValue(await metrics(), THROTTLED)
    const throttled = await burst(10, 1500)
    // At 2 per second measured over one window, about 2 + 2 × 1.5 get in within 1.5 s; 8 leaves
    // slack for the window's edges. All are answered in the end: the acceptor waits, closes none.
    assert.ok(throttled.inWindow <= 8, `${throttled.inWindow} of 10 answered within 1.5 s under a rate of 2/s`)
    assert.equal(throttled.answered, 10)
    assert.ok(counterValue(await metrics(), THROTTLED) > before1, 'the acceptor waited')

    await ok(['--alter', ...BD, '--delete-config', 'max.connection.creation.rate'])
    assert.doesNotMatch(await ok(['--describe', ...BD]), /max\.connection\.creation\.rate/)
    // The tool's own connections may still have waited on the old rate; from here on nothing does.
    const before2 = counterValue(await metrics(), THROTTLED)
    assert.equal((await burst(10, 1500)).answered, 10)
    assert.equal(counterValue(await metrics(), THROTTLED), before2, 'the rate is gone: no connection waited')
  })

  test('max.connections.per.ip=3 on broker 1: the 4th connection from 127.0.0.1 is closed; deleted, more get in', {
    timeout: 5 * 60_000,
  }, async () => {
    await ok(['--alter', ...B1, '--add-config', 'max.connections.per.ip=3'])
    const shown = await ok(['--describe', ...B1])
    assert.match(
      shown,
      /max\.connections\.per\.ip=3 sensitive=false synonyms=\{DYNAMIC_BROKER_CONFIG:max\.connections\.per\.ip=3, DEFAULT_CONFIG:max\.connections\.per\.ip=2147483647\}/,
    )
    const closesBefore = counterValue(await metrics(), LIMIT_CLOSES)
    const held = [
      await RawClient.connect(broker.host, broker.port),
      await RawClient.connect(broker.host, broker.port),
      await RawClient.connect(broker.host, broker.port),
    ]
    try {
      for (const c of held) {
        const res = await c.request(ApiVersionsRequest, ApiVersionsResponse, 3, { clientSoftwareName: 'it', clientSoftwareVersion: '1' })
        assert.equal(res.errorCode, 0)
      }
      const fourth = await RawClient.connect(broker.host, broker.port)
      fourth.sendRequest(ApiVersionsRequest, 3, { clientSoftwareName: 'it', clientSoftwareVersion: '1' })
      const seen = await fourth.expectClose(30_000)
      assert.deepEqual(seen, { closed: true, frames: 0 }, 'the 4th connection is closed unanswered')
      assert.equal(counterValue(await metrics(), LIMIT_CLOSES), closesBefore + 1)
      // The three stay open and served.
      for (const c of held) {
        const res = await c.request(ApiVersionsRequest, ApiVersionsResponse, 3, { clientSoftwareName: 'it', clientSoftwareVersion: '1' })
        assert.equal(res.errorCode, 0)
      }
    } finally {
      for (const c of held) c.close()
      await Promise.all(held.map((c) => c.closed))
    }
    await ok(['--alter', ...B1, '--delete-config', 'max.connections.per.ip'])
    assert.doesNotMatch(await ok(['--describe', ...B1]), /max\.connections\.per\.ip=/)
    const many = await burst(6, 0)
    assert.equal(many.answered, 6)
    assert.equal(counterValue(await metrics(), LIMIT_CLOSES), closesBefore + 1, 'no more connection closed')
  })
})
