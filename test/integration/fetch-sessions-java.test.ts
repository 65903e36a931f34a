// Incremental fetch sessions (KIP-227) through the Java 4.4 KafkaConsumer, which uses them by
// default: a group-less consumer reads 20 partitions with small fetches (many rounds) while half
// the records are written during the run (test/interop/java FetchSessions). Every record arrives
// once and in order per partition; the client's FetchSessionHandler logs (at debug) that it built
// incremental fetches and no fetch session error; while the consumer is still open the broker's
// /metrics counts its session and the session's 20 partitions. Missing java or mvn fails this test.
import assert from 'node:assert/strict'
import { after, before, describe, test } from 'node:test'
import { type BrokerProcess, startBrokerProcess, stopAndCheck } from '../helpers/broker-process.js'
import { javaCommand } from '../helpers/run-process.js'
import { buildJavaPrograms, type JavaPrograms, javaEnv, LineProcess } from '../interop/txn-broker.js'
import { sampleValue, scrape } from '../unit/http/metrics-text-parser.js'

const PARTITIONS = 20
const PER_PARTITION = 200
const WAIT_MS = 180_000
/** slf4j-simple's per-logger level property for the client's FetchSessionHandler. */
const SESSION_HANDLER_LOG = 'org.slf4j.simpleLogger.log.org.apache.kafka.clients.FetchSessionHandler'

describe('fetch sessions: the Java 4.4 consumer', () => {
  let broker: BrokerProcess | undefined
  let java: JavaPrograms | undefined

  before(async () => {
    broker = await startBrokerProcess()
  })

  after(async () => {
    java?.remove()
    await stopAndCheck(broker)
  })

  test('20 partitions over one session: every record once and in order, incremental fetches, the session counted', {
    timeout: 16 * 60_000,
  }, async () => {
    assert.ok(broker, 'broker not started')
    assert.ok(broker.http, 'the broker has an HTTP listener')
    java = await buildJavaPrograms()
    const metricsUrl = `${broker.http}/metrics`
    const before = await scrape(metricsUrl)
    assert.equal(sampleValue(before, 'kafka_server_fetchsessioncache_numincrementalfetchsessions'), 0)
    const p = LineProcess.start(
      javaCommand(),
      [
        `-D${SESSION_HANDLER_LOG}=debug`,
        '-cp',
        java.classpath,
        'io.tributary.interop.FetchSessions',
        broker.bootstrap,
        'fetch-sessions-java',
        String(PARTITIONS),
        String(PER_PARTITION),
      ],
      javaEnv(),
    )
    try {
      const line = await p.waitLine((l) => l.startsWith('FETCH-SESSIONS '), 'the records consumed', WAIT_MS)
      assert.equal(line, `FETCH-SESSIONS consumed ${PARTITIONS * PER_PARTITION}`, p.context())
      const during = await scrape(metricsUrl)
      assert.equal(sampleValue(during, 'kafka_server_fetchsessioncache_numincrementalfetchsessions'), 1, 'the consumer has one session')
      assert.equal(sampleValue(during, 'kafka_server_fetchsessioncache_numincrementalfetchpartitionscached'), PARTITIONS)
      assert.equal(sampleValue(during, 'kafka_server_fetchsessioncache_incrementalfetchsessionevictions_total'), 0)
      p.send('close')
      await p.waitLine((l) => l.startsWith('FETCH-SESSIONS OK'), 'the consumer closed', WAIT_MS)
      const exit = await p.exited
      assert.equal(exit.code, 0, p.context())
      // The client's own account: incremental fetches built, none refused by the broker.
      assert.match(p.stderr, /Built incremental fetch/, p.context())
      assert.doesNotMatch(
        p.stderr,
        /unable to process the fetch request|FETCH_SESSION_ID_NOT_FOUND|INVALID_FETCH_SESSION_EPOCH/,
        p.context(),
      )
    } finally {
      await p.kill9()
    }
  })
})
