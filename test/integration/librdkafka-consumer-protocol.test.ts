// KIP-848 consumer groups through librdkafka (confluent-kafka 2.16.1, librdkafka 2.16) with
// group.protocol=consumer: test/interop/python/consumer-protocol.py runs each consumer in its own
// process against a broker process and reports what they consumed.
// - churn: three consumers join one after another while records are produced, one leaves, one is
//   SIGKILLed, a fourth joins: every record is consumed; a record consumed twice was first read by
//   the killed consumer (after its last commit), never because of a graceful rebalance; the three
//   members held two partitions each, none twice.
// - regex: a subscription to ^PREFIX-rx-.* reads both matching topics and nothing of a third.
// - static membership (group.instance.id): a member that closes and restarts within the session
//   timeout gets back the partitions it had, and the other member keeps its own, unrevoked.
// - upgrade: a classic group of two (group.protocol=classic) whose members are replaced one by one
//   by group.protocol=consumer ones: converted at the first, nothing skipped, a consumer group of
//   two at the end.
// The broker's session timeout is 8 s so the killed member's partitions move within the test.
// Missing python3 or confluent_kafka fails this file (`pip install confluent-kafka==2.16.1`).
import assert from 'node:assert/strict'
import { after, before, describe, test } from 'node:test'
import { fileURLToPath } from 'node:url'
import { type BrokerProcess, startBrokerProcess, stopAndCheck } from '../helpers/broker-process.js'
import { lastJsonLine, runProcess, show } from '../helpers/run-process.js'

const SCRIPT = fileURLToPath(new URL('../../../test/interop/python/consumer-protocol.py', import.meta.url))
const INSTALL_HINT = 'install Python 3, then: pip install confluent-kafka==2.16.1'
const PREFIX = 'it-rdk848'

type Partitions = Array<[string, number]>

interface Report {
  librdkafka: string
  churn: {
    exception?: string
    produced: number
    delivery_failures: string[]
    drained: boolean
    consumed_distinct: number
    missing: string[]
    duplicates: number
    duplicates_without_kill: string[]
    spread: Record<string, Partitions>
    commit_failures: Array<{ ev: string; error?: string }>
  }
  regex: { exception?: string; topics: string[]; distinct: number; assignment: Partitions }
  static: {
    exception?: string
    stable: boolean
    rejoined: boolean
    before: Record<string, Partitions>
    after: Record<string, Partitions>
    s2_revocations: number
  }
  upgrade: {
    exception?: string
    produced: number
    delivery_failures: string[]
    drained: boolean
    missing: string[]
    before: { type: string; members: number } | null
    mixed: { type: string; members: number } | null
    end: { type: string; members: number } | null
    owned_at_end: Record<string, Partitions>
    errors: Array<{ ev: string; error?: string }>
  }
}

describe('KIP-848 consumer groups: librdkafka with group.protocol=consumer', () => {
  let broker: BrokerProcess | undefined

  before(async () => {
    broker = await startBrokerProcess({
      overrides: { 'group.consumer.session.timeout.ms': '8000', 'group.consumer.heartbeat.interval.ms': '1000' },
    })
  })

  after(async () => {
    await stopAndCheck(broker)
  })

  test('join/leave/kill without a skipped record, a regex subscription, static members keeping their partitions, a classic group upgraded', {
    timeout: 300_000,
  }, async () => {
    const r = await runProcess('python3', [SCRIPT, broker!.bootstrap, PREFIX], { timeoutMs: 280_000, installHint: INSTALL_HINT })
    const context = () => `${show(r)}\nbroker stderr tail:\n${broker!.stderr().slice(-4000)}`
    assert.equal(r.code, 0, `consumer-protocol.py failed: ${context()}`)
    const w = lastJsonLine<Report>(r, 'consumer-protocol.py')
    console.log(JSON.stringify(w))
    const [major, minor] = w.librdkafka.split('.').map(Number)
    assert.ok(major! > 2 || (major === 2 && minor! >= 12), `librdkafka ${w.librdkafka} has no KIP-848 support`)

    const c = w.churn
    assert.equal(c.exception, undefined, `churn: ${c.exception}`)
    assert.deepEqual(c.delivery_failures, [])
    assert.ok(c.drained, `not every record was consumed; missing e.g. ${c.missing.join(',')}`)
    assert.equal(c.consumed_distinct, c.produced)
    // A commit that races the member's epoch bump is refused STALE_MEMBER_EPOCH, as Kafka refuses it
    // (the member commits again after it reconciles); its records may then be read again by their
    // next owner. Nothing else may fail, and without such a refusal nothing is read twice but
    // around the killed member.
    const stale = (e: { ev: string; error?: string }) => e.ev === 'commit_failed' && /STALE_MEMBER_EPOCH/.test(e.error ?? '')
    assert.deepEqual(
      c.commit_failures.filter((e) => !stale(e)),
      [],
    )
    if (c.commit_failures.length === 0) assert.deepEqual(c.duplicates_without_kill, [], 'records consumed twice without a kill')
    const held = Object.values(c.spread).flat()
    assert.equal(held.length, 6, `three members, two partitions each: ${JSON.stringify(c.spread)}`)
    assert.equal(new Set(held.map(([t, p]) => `${t}/${p}`)).size, 6, 'no partition held twice')

    const x = w.regex
    assert.equal(x.exception, undefined, `regex: ${x.exception}`)
    assert.deepEqual(x.topics, [`${PREFIX}-rx-a`, `${PREFIX}-rx-b`])
    assert.equal(x.distinct, 200)
    assert.equal(x.assignment.length, 4)

    const s = w.static
    assert.equal(s.exception, undefined, `static: ${s.exception}`)
    assert.ok(s.stable, `the two static members never held two partitions each: ${JSON.stringify(s.before)}`)
    assert.ok(s.rejoined, 'the restarted static member got no partitions back')
    assert.deepEqual(s.after, s.before, 'the restarted member has its old partitions; the other kept its own')
    assert.equal(s.s2_revocations, 0, 'the member that stayed had nothing revoked')

    const u = w.upgrade
    assert.equal(u.exception, undefined, `upgrade: ${u.exception}`)
    assert.deepEqual(u.delivery_failures, [])
    assert.deepEqual(u.errors, [])
    assert.deepEqual(u.before, { type: 'CLASSIC', members: 2 }, 'the group starts classic')
    assert.deepEqual(u.mixed, { type: 'CONSUMER', members: 2 }, 'the first consumer-protocol member converts it')
    assert.deepEqual(u.end, { type: 'CONSUMER', members: 2 })
    assert.ok(u.drained, `not every record was consumed; missing e.g. ${u.missing.join(',')}`)
    assert.deepEqual(
      Object.values(u.owned_at_end).map((ps) => ps.length),
      [3, 3],
      `two members, three partitions each: ${JSON.stringify(u.owned_at_end)}`,
    )
    assert.ok(broker!.alive(), 'broker died during the run')
  })
})
