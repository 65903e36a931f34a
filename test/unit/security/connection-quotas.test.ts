// Unit tests of the acceptor's connection quotas (src/security/quota/connection-quotas.ts), as
// Kafka's ConnectionQuotas and DynamicConnectionQuota: the broker-wide limit spares the
// inter-broker listener, a listener's own limit applies to it alone, per-ip maximums and their
// overrides (hostnames resolved), and reconfigure() applies new values to the next connection
// while a rate keeps what it measured.
import assert from 'node:assert/strict'
import { test } from 'node:test'
import { defaultBrokerConfig } from '../../../src/config/config.js'
import { ConnectionQuotas } from '../../../src/security/quota/connection-quotas.js'
import { ManualClock } from '../../../src/util/clock.js'

const TWO_LISTENERS = {
  listeners: 'CLIENT://127.0.0.1:0,INTERNAL://127.0.0.1:0',
  'listener.security.protocol.map': 'CLIENT:PLAINTEXT,INTERNAL:PLAINTEXT',
  'inter.broker.listener.name': 'INTERNAL',
}

test('max.connections: the inter-broker listener is spared; a listener limit applies to it alone', () => {
  const config = defaultBrokerConfig({ ...TWO_LISTENERS, 'max.connections': 2, 'listener.name.internal.max.connections': 1 })
  const q = new ConnectionQuotas(config, { clock: new ManualClock() })
  assert.equal(q.slotAvailable('CLIENT', { total: 1, listener: 1 }), true)
  assert.equal(q.slotAvailable('CLIENT', { total: 2, listener: 1 }), false, 'broker-wide limit reached')
  assert.equal(q.slotAvailable('INTERNAL', { total: 5, listener: 0 }), true, 'the protected listener')
  assert.equal(q.slotAvailable('INTERNAL', { total: 0, listener: 1 }), false, 'its own limit')
})

test('with a single listener, max.connections limits it too (Kafka protects only among several)', () => {
  const q = new ConnectionQuotas(defaultBrokerConfig({ 'max.connections': 1 }), { clock: new ManualClock() })
  assert.equal(q.slotAvailable('PLAINTEXT', { total: 0, listener: 0 }), true)
  assert.equal(q.slotAvailable('PLAINTEXT', { total: 1, listener: 1 }), false)
})

test('max.connections.per.ip and its overrides: addresses as given, IPv6 without brackets, names resolved', async () => {
  const config = defaultBrokerConfig({
    'max.connections.per.ip': 3,
    'max.connections.per.ip.overrides': '10.0.0.1:1, ::1:7,db.example:9,gone.invalid:4',
  })
  const changes: string[] = []
  const q = new ConnectionQuotas(config, {
    clock: new ManualClock(),
    resolve: async (host) => {
      if (host === 'db.example') return ['10.0.0.9', 'FE80::9']
      throw new Error('ENOTFOUND')
    },
  })
  q.onChange(() => changes.push('changed'))
  assert.equal(q.maxConnectionsPerIp('10.0.0.1'), 1)
  assert.equal(q.maxConnectionsPerIp('::1'), 7)
  assert.equal(q.maxConnectionsPerIp('10.0.0.2'), 3)
  await new Promise((r) => setImmediate(r))
  assert.deepEqual(changes, ['changed'], 'told once the names are resolved')
  assert.equal(q.maxConnectionsPerIp('10.0.0.9'), 9)
  assert.equal(q.maxConnectionsPerIp('fe80::9'), 9)
})

test('reconfigure: new limits apply at once; a hostname lookup of an older value is dropped', async () => {
  let release: (a: string[]) => void = () => {}
  const q = new ConnectionQuotas(defaultBrokerConfig({ 'max.connections.per.ip.overrides': 'slow.example:1' }), {
    clock: new ManualClock(),
    resolve: () => new Promise((r) => (release = r)),
  })
  const changes: number[] = []
  q.onChange(() => changes.push(q.maxConnectionsPerIp('10.0.0.5')))
  q.reconfigure(defaultBrokerConfig({ 'max.connections.per.ip': 2, 'max.connections': 4 }))
  assert.deepEqual(changes, [2])
  assert.equal(q.slotAvailable('PLAINTEXT', { total: 4, listener: 4 }), false)
  release(['10.0.0.5'])
  await new Promise((r) => setImmediate(r))
  assert.equal(q.maxConnectionsPerIp('10.0.0.5'), 2, 'the stale override is not applied')
  assert.deepEqual(changes, [2])
  q.reconfigure(defaultBrokerConfig())
  assert.equal(q.maxConnectionsPerIp('10.0.0.5'), Number.POSITIVE_INFINITY)
  assert.equal(q.slotAvailable('PLAINTEXT', { total: 1e6, listener: 1e6 }), true)
})

test('max.connection.creation.rate set and removed at run time; the measured rate is kept across a change', () => {
  const clock = new ManualClock()
  const q = new ConnectionQuotas(defaultBrokerConfig({ 'quota.window.num': 2 }), { clock })
  assert.equal(q.applies('PLAINTEXT'), false)
  q.reconfigure(defaultBrokerConfig({ 'quota.window.num': 2, 'max.connection.creation.rate': 2 }))
  assert.equal(q.applies('PLAINTEXT'), true)
  // 2 per second over at least one window: the third connection at once waits.
  assert.equal(q.delayMs('PLAINTEXT'), 0)
  assert.equal(q.delayMs('PLAINTEXT'), 0)
  assert.ok(q.delayMs('PLAINTEXT') > 0)
  // A higher rate counts what was measured: 3 recorded, a 4th and 5th fit under 5 per second, a 6th does not.
  q.reconfigure(defaultBrokerConfig({ 'quota.window.num': 2, 'max.connection.creation.rate': 5 }))
  assert.equal(q.delayMs('PLAINTEXT'), 0)
  assert.equal(q.delayMs('PLAINTEXT'), 0)
  assert.ok(q.delayMs('PLAINTEXT') > 0)
  q.reconfigure(defaultBrokerConfig({ 'quota.window.num': 2 }))
  assert.equal(q.applies('PLAINTEXT'), false)
  // A listener's own rate, set later, starts from nothing.
  q.reconfigure(defaultBrokerConfig({ 'quota.window.num': 2, 'listener.name.plaintext.max.connection.creation.rate': 1 }))
  assert.equal(q.delayMs('PLAINTEXT'), 0)
  assert.ok(q.delayMs('PLAINTEXT') > 0)
})
