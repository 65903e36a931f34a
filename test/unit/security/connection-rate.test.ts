// Unit tests of the acceptor's connection creation rates (src/security/quota/connection-rate.ts,
// KIP-612) on explicit times: the broker-wide rate spares the inter-broker listener, a listener's
// own rate applies to it alone, the longest throttle wins, and a throttle is at most one window.
import assert from 'node:assert/strict'
import { test } from 'node:test'
import { ConnectionCreationRates } from '../../../src/security/quota/connection-rate.js'

const limits = (o: Partial<ConstructorParameters<typeof ConnectionCreationRates>[0]>) => ({
  broker: undefined,
  listeners: new Map<string, number>(),
  protectedListener: undefined,
  samples: 11,
  windowMs: 1000,
  ...o,
})

test('past max.connection.creation.rate the acceptor waits; the inter-broker listener is spared', () => {
  const r = new ConnectionCreationRates(limits({ broker: 2, protectedListener: 'INTERNAL' }))
  // 2 per second over 10 windows: 20 connections at once are within the rate, the 21st is not.
  for (let i = 0; i < 20; i++) assert.equal(r.acceptDelayMs('CLIENT', 0), 0, `connection ${i}`)
  const wait = r.acceptDelayMs('CLIENT', 0)
  assert.ok(wait > 0 && wait <= 1000, `wait ${wait}`)
  assert.equal(r.applies('INTERNAL'), false)
  assert.equal(r.acceptDelayMs('INTERNAL', 0), 0)
})

test("a listener's own rate applies to it alone, the inter-broker one included", () => {
  const r = new ConnectionCreationRates(limits({ listeners: new Map([['INTERNAL', 1]]), protectedListener: 'INTERNAL' }))
  assert.equal(r.applies('CLIENT'), false)
  assert.equal(r.applies('INTERNAL'), true)
  for (let i = 0; i < 10; i++) assert.equal(r.acceptDelayMs('INTERNAL', 0), 0)
  assert.ok(r.acceptDelayMs('INTERNAL', 0) > 0)
})

test('the longer of the broker-wide and the listener throttle is waited, at most one window', () => {
  const r = new ConnectionCreationRates(limits({ broker: 1000, listeners: new Map([['CLIENT', 0]]) }))
  // A rate of 0 throttles every connection, for one window (Kafka bounds the throttle so).
  assert.equal(r.acceptDelayMs('CLIENT', 0), 1000)
  assert.equal(r.acceptDelayMs('OTHER', 0), 0)
})

test('once the rate falls back under the quota, connections are taken at once again', () => {
  const r = new ConnectionCreationRates(limits({ broker: 1 }))
  for (let i = 0; i < 10; i++) r.acceptDelayMs('CLIENT', 0)
  assert.ok(r.acceptDelayMs('CLIENT', 0) > 0)
  assert.equal(r.acceptDelayMs('CLIENT', 30_000), 0)
})
