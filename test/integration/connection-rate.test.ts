// KIP-612's acceptor throttle against an in-process broker: with
// listener.name.plaintext.max.connection.creation.rate=1, kafkajs clients connecting at once all
// get in — the acceptor makes them wait (counted in /metrics), it closes none — while the per-ip
// connection_creation_rate quota (quota-node.test.ts) closes instead. A bad rate stops the start
// with a message naming the key.
import assert from 'node:assert/strict'
import { after, before, describe, test } from 'node:test'
import { Kafka, logLevel } from 'kafkajs'
import { startBroker, type RunningBroker } from '../../src/broker/start.js'
import { silentLogger } from '../../src/util/logger.js'

/** A counter's value in the /metrics exposition (0 when the series is absent). */
function counterValue(exposition: string, series: string): number {
  const line = exposition.split('\n').find((l) => l.startsWith(`${series} `))
  return line === undefined ? 0 : Number(line.slice(series.length + 1))
}

describe('connection creation rates of the acceptor (KIP-612)', () => {
  let broker: RunningBroker

  before(async () => {
    broker = await startBroker({
      storage: 'memory',
      logger: silentLogger,
      http: true,
      config: { 'listener.name.plaintext.max.connection.creation.rate': 1, 'quota.window.num': 2 },
    })
  })
  after(async () => {
    await broker?.close()
  })

  test('connections past the rate wait for the acceptor and all get in; none is closed', { timeout: 60_000 }, async () => {
    const admins = Array.from({ length: 3 }, (_, i) =>
      new Kafka({ clientId: `it-conn-rate-${i}`, brokers: [broker.bootstrap], logLevel: logLevel.NOTHING, retry: { retries: 0 } }).admin(),
    )
    try {
      // retries 0: a connection closed by the broker would fail its client.
      const listed = await Promise.all(
        admins.map(async (a) => {
          await a.connect()
          return a.listTopics()
        }),
      )
      assert.equal(listed.length, 3)
    } finally {
      await Promise.all(admins.map((a) => a.disconnect()))
    }
    const metrics = await (await fetch(`${broker.http}/metrics`)).text()
    assert.ok(
      counterValue(metrics, 'kafka_network_acceptor_throttled_connections_total{listener="PLAINTEXT"}') >= 1,
      'no connection waited',
    )
    assert.ok(counterValue(metrics, 'kafka_network_acceptor_throttle_time_seconds_total{listener="PLAINTEXT"}') > 0)
    assert.equal(counterValue(metrics, 'tributary_network_protocol_closes_total{listener="PLAINTEXT",kind="connection-rate"}'), 0)
  })

  test('a negative or non-integer rate stops the start, naming the key', async () => {
    await assert.rejects(
      startBroker({ storage: 'memory', logger: silentLogger, config: { 'max.connection.creation.rate': -1 } }),
      /max\.connection\.creation\.rate/,
    )
    await assert.rejects(
      startBroker({ storage: 'memory', logger: silentLogger, config: { 'listener.name.plaintext.max.connection.creation.rate': 'fast' } }),
      /listener\.name\.plaintext\.max\.connection\.creation\.rate/,
    )
  })
})
