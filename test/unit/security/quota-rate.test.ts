// Unit tests of the quota measures (src/security/quota/rate.ts) on explicit times: Kafka's
// sampled rate (window size counted as at least samples − 1 windows, expiry, throttle time) and
// the controller mutation token bucket.
import assert from 'node:assert/strict'
import { test } from 'node:test'
import { SampledRate, TokenBucket } from '../../../src/security/quota/rate.js'

test('a first burst is measured over samples − 1 windows, not over the milliseconds it took', () => {
  const r = new SampledRate(11, 1000)
  r.record(10_000, 0)
  assert.equal(r.windowSize(0), 10_000)
  assert.equal(r.rate(0), 1000)
  // 5.5 s later the span is still counted as 10 full windows plus the part of the current one.
  assert.equal(r.windowSize(5_500), 10_000 + 500)
})

test('the rate is the sum of the retained windows over the time they cover', () => {
  const r = new SampledRate(11, 1000)
  for (let t = 0; t < 20_000; t += 100) r.record(100, t) // 1000 units per second
  const rate = r.rate(20_000)
  assert.ok(rate > 900 && rate <= 1000, `rate ${rate}`)
  // The span stops growing past samples windows: old windows are replaced.
  assert.ok(r.windowSize(20_000) <= 12_000, `window ${r.windowSize(20_000)}`)
})

test("throttle time is Kafka's (rate − quota) / quota × window", () => {
  const r = new SampledRate(11, 1000)
  r.record(20_000, 0) // 2000/s over the 10 s minimum span
  assert.equal(r.throttleMs(1000, 0), 10_000)
  assert.equal(r.throttleMs(2000, 0), 0)
  assert.equal(r.throttleMs(4000, 0), 0)
  // A negative record (a refused connection, an emptied Fetch) takes the value back.
  r.record(-10_000, 0)
  assert.equal(r.throttleMs(1000, 0), 0)
})

test('windows idle for samples × window are reset: an old burst is forgotten', () => {
  const r = new SampledRate(3, 1000)
  r.record(1_000_000, 0)
  assert.ok(r.throttleMs(100, 1000) > 0)
  assert.equal(r.rate(3000), 0)
  assert.equal(r.throttleMs(100, 3000), 0)
})

test('only the windows of the last samples × window count', () => {
  const r = new SampledRate(3, 1000)
  for (let t = 0; t <= 10_000; t += 1000) r.record(100, t)
  // Windows started at 8, 9 and 10 s remain; the one of 7 s saw its last event 3 s ago.
  assert.equal((r.rate(10_000) * r.windowSize(10_000)) / 1000, 300)
})

test('the token bucket starts full, goes negative, and refills at the quota', () => {
  const b = new TokenBucket(10, 1000)
  assert.equal(b.measure(2, 0), 20) // burst = 10 windows × 1 s × 2 per second
  b.record(25, 2, 0)
  assert.equal(b.measure(2, 0), -5)
  assert.equal(b.throttleMs(2, 0), 2500)
  assert.equal(b.throttleMs(2, 2500), 0)
  assert.equal(b.measure(2, 100_000), 20)
})
