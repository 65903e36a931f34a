// librdkafka (confluent-kafka 2.16.1, the librdkafka inside its wheel) idempotent and transactional
// producers against a broker process (test/interop/txn-broker.ts; TXN_TEST_BROKER=kafka runs the
// same file against Apache Kafka). test/interop/python/txn-librdkafka.py runs the workload — an
// idempotent producer whose every acknowledged record is stored once at its offset; a
// consume-transform-produce transaction committed, one aborted (records and group offsets), one more
// committed — and prints what it saw; the test judges it. Missing python3 or confluent_kafka fails
// this file (`npm run test:deps`); it never skips.
import assert from 'node:assert/strict'
import { after, before, describe, test } from 'node:test'
import { fileURLToPath } from 'node:url'
import { lastJsonLine, runProcess, show } from '../helpers/run-process.js'
import { startTxnBroker, type TxnBroker } from '../interop/txn-broker.js'

const SCRIPT = fileURLToPath(new URL('../../../test/interop/python/txn-librdkafka.py', import.meta.url))
const INSTALL_HINT = 'install Python 3, then: pip install confluent-kafka==2.16.1'

interface Result {
  librdkafka: string
  idempotent: {
    sent: number
    acked: number
    failures: string[]
    unflushed: number
    stored: number
    stored_distinct: number
    acked_match_stored: boolean
    offsets_contiguous: boolean
  }
  transactional: {
    read_committed_ok: boolean
    read_committed: number
    committed: number
    read_committed_unexpected: string[]
    read_committed_missing: string[]
    read_uncommitted_ok: boolean
    read_uncommitted: number
    everything: number
    group_offsets: number[]
    want_group_offsets: number[]
  }
  errors: string[]
}

describe('librdkafka (confluent-kafka) idempotent and transactional producers', () => {
  let broker: TxnBroker

  before(async () => {
    broker = await startTxnBroker()
  })

  after(async () => {
    await broker?.stop()
  })

  test('idempotent: every record stored once at its offset; transactions: read_committed sees only the committed, offsets too', {
    timeout: 180_000,
  }, async () => {
    const r = await runProcess('python3', [SCRIPT, broker.bootstrap, 'rdk-txn'], { timeoutMs: 150_000, installHint: INSTALL_HINT })
    const context = () => `${show(r)}\nbroker (${broker.kind}) log tail:\n${broker.logTail()}`
    assert.equal(r.code, 0, `txn-librdkafka.py failed: ${context()}`)
    const w = lastJsonLine<Result>(r, 'txn-librdkafka.py')
    const i = w.idempotent
    assert.deepEqual(i.failures, [], `idempotent deliveries failed: ${context()}`)
    assert.equal(i.unflushed, 0)
    assert.equal(i.acked, i.sent, 'every idempotent record acknowledged')
    assert.equal(i.stored, i.sent, 'each stored once')
    assert.equal(i.stored_distinct, i.sent)
    assert.ok(i.acked_match_stored, 'each record stored at the offset its acknowledgement named')
    assert.ok(i.offsets_contiguous, 'offsets 0..n-1 in each partition')
    const t = w.transactional
    assert.ok(
      t.read_committed_ok,
      `read_committed read ${t.read_committed} records, want the ${t.committed} committed; unexpected ${t.read_committed_unexpected}, missing ${t.read_committed_missing}: ${context()}`,
    )
    assert.ok(t.read_uncommitted_ok, `read_uncommitted read ${t.read_uncommitted} records, want ${t.everything}: ${context()}`)
    assert.deepEqual(t.group_offsets, t.want_group_offsets, `the group's offsets are the committed transaction's: ${context()}`)
    assert.deepEqual(w.errors, [], 'librdkafka reported no error')
    console.log(
      `txn-librdkafka (${broker.kind}, librdkafka ${w.librdkafka}): ${i.acked} idempotent, ${t.committed} committed of ${t.everything}`,
    )
    assert.ok(broker.alive(), 'the broker died')
  })
})
