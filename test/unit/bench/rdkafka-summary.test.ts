// The bench's reading of rdkafka_performance's output (bench/harness/rdkafka.ts): the run's own
// summary is the last of the once-a-second lines, and a run that lost or failed records is an error,
// not a figure. The lines below have the shape librdkafka 2.15's rdkafka_performance prints.
import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { parseConsumeSummary, parseProduceSummary } from '../../../bench/harness/rdkafka.js'

const produced = (n: number, delivered: number, failed: number, ms: number, rate: number, mb: string) =>
  `% ${n} messages produced (${n * 100} bytes), ${delivered} delivered (offset ${delivered - 1}, ${failed} failed) in ${ms}ms: ${rate} msgs/s and ${mb} MB/s, 0 produce failures, ${n - delivered} in queue, no compression`

describe('rdkafka_performance -P summary', () => {
  it('takes the last summary line, not an interval line before it', () => {
    const out = [
      '% Sending 500000 messages of size 100 bytes',
      produced(500000, 490428, 0, 1001, 489734, '48.97'),
      produced(500000, 500000, 0, 1252, 399280, '39.93'),
      '%4|1796351181.384|CONFWARN|rdkafka#producer-1| [thrd:app]: Configuration property offset_commit_cb is a consumer property',
    ].join('\n')
    assert.deepEqual(parseProduceSummary(out, 500000), { records: 500000, elapsedMs: 1252, recordsPerSec: 399280, mbPerSec: 39.93 })
  })

  it('refuses a run that delivered fewer records than it was asked to send', () => {
    assert.throws(() => parseProduceSummary(produced(500000, 490428, 0, 1001, 489734, '48.97'), 500000), /delivered 490428 of 500000/)
  })

  it('refuses a run with failed deliveries', () => {
    assert.throws(() => parseProduceSummary(produced(500000, 500000, 3, 1001, 489734, '48.97'), 500000), /3 failed/)
  })

  it('refuses output without a summary', () => {
    assert.throws(() => parseProduceSummary('% Sending 10 messages of size 100 bytes\n', 10), /no summary/)
  })
})

describe('rdkafka_performance -G summary', () => {
  const consumed = (n: number, ms: number, rate: number, mb: string) =>
    `% ${n} messages (${n * 100} bytes) consumed in ${ms}ms: ${rate} msgs/s (${mb} MB/s)`

  it('takes the last summary line', () => {
    const out = [
      consumed(0, 0, 0, '0.00'),
      consumed(0, 0, 0, '0.00'),
      '% Consumer reached end of consume-100b [7] message queue at offset 61390',
      consumed(500000, 450, 1110758, '111.08'),
      '% Average application fetch latency: 7us',
    ].join('\n')
    assert.deepEqual(parseConsumeSummary(out, 500000), { records: 500000, elapsedMs: 450, recordsPerSec: 1110758, mbPerSec: 111.08 })
  })

  it('refuses a run that consumed fewer records than asked', () => {
    assert.throws(() => parseConsumeSummary(consumed(400000, 450, 888888, '88.89'), 500000), /consumed 400000 of 500000/)
  })
})
