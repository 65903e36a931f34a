// The client telemetry service (KIP-714) on a manual clock: instance id assignment, the
// subscription a broker with no client-metrics subscription gives, the push checks in Kafka's
// order, and the bounds of the payload store.
import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { ZERO_UUID } from '../../../src/cluster/uuid.js'
import type { TelemetryConnection } from '../../../src/ports/telemetry.js'
import { ClientTelemetry, subscriptionIdOf } from '../../../src/telemetry/client-telemetry.js'
import { ManualClock } from '../../../src/util/clock.js'

const INTERVAL = 300_000

function connection(id = 1): { conn: TelemetryConnection; close: () => void } {
  const ac = new AbortController()
  return { conn: { id, closed: ac.signal }, close: () => ac.abort() }
}

function setup(opts: { maxStoredPushes?: number; maxStoredBytes?: number; telemetryMaxBytes?: number } = {}) {
  const clock = new ManualClock(1_700_000_000_000)
  return { clock, telemetry: new ClientTelemetry({ clock, ...opts }) }
}

const push = (id: string, subscriptionId: number, metrics: Buffer, extra: { terminating?: boolean; compressionType?: number } = {}) => ({
  clientInstanceId: id,
  subscriptionId,
  terminating: extra.terminating ?? false,
  compressionType: extra.compressionType ?? 0,
  metrics,
  clientId: 'app',
})

describe('client telemetry', () => {
  it('assigns a fresh instance id to the zero id and answers with no subscription', () => {
    const { telemetry } = setup()
    const { conn } = connection()
    const a = telemetry.getSubscription(ZERO_UUID, conn)
    const b = telemetry.getSubscription(ZERO_UUID, connection(2).conn)
    assert.equal(a.errorCode, 0)
    assert.notEqual(a.clientInstanceId, ZERO_UUID)
    assert.notEqual(a.clientInstanceId, b.clientInstanceId)
    assert.deepEqual(
      { ...a, clientInstanceId: 'x', subscriptionId: 0 },
      {
        errorCode: 0,
        clientInstanceId: 'x',
        subscriptionId: 0,
        acceptedCompressionTypes: [4, 3, 1, 2],
        pushIntervalMs: INTERVAL,
        telemetryMaxBytes: 1024 * 1024,
        deltaTemporality: true,
        requestedMetrics: [],
      },
    )
    assert.equal(a.subscriptionId, subscriptionIdOf([], INTERVAL, a.clientInstanceId))
  })

  it('computes the subscription id as Kafka: CRC-32C("[]300000") XOR the Java hashCode of the id', () => {
    // Uuid(0, 1): hashCode 1. CRC-32C of the 8 bytes "[]300000" is 0xd4c75bde (java.util.zip.CRC32C
    // gives the same), -725132322 as a Java int.
    assert.equal(subscriptionIdOf([], INTERVAL, 'AAAAAAAAAAAAAAAAAAAAAQ'), -725132321)
  })

  it('a known id keeps its id; asking again within the push interval is throttled', () => {
    const { telemetry, clock } = setup()
    const { conn } = connection()
    const first = telemetry.getSubscription(ZERO_UUID, conn)
    const again = telemetry.getSubscription(first.clientInstanceId, conn)
    assert.equal(again.errorCode, 89) // THROTTLING_QUOTA_EXCEEDED
    clock.advance(INTERVAL)
    const later = telemetry.getSubscription(first.clientInstanceId, conn)
    assert.equal(later.errorCode, 0)
    assert.equal(later.clientInstanceId, first.clientInstanceId)
    assert.equal(later.subscriptionId, first.subscriptionId)
  })

  it('refuses pushes as Kafka, in order, and keeps the last accepted payload', () => {
    const { telemetry, clock } = setup({ telemetryMaxBytes: 10 })
    const { conn } = connection()
    const sub = telemetry.getSubscription(ZERO_UUID, conn)
    const id = sub.clientInstanceId
    assert.equal(telemetry.push(push(ZERO_UUID, 0, Buffer.from('x')), conn), 42) // zero id: INVALID_REQUEST
    assert.equal(telemetry.push(push('AAAAAAAAAAAAAAAAAAAAAQ', 0, Buffer.from('x')), conn), 42) // reserved id
    assert.equal(telemetry.push(push(id, sub.subscriptionId + 1, Buffer.from('x')), conn), 117) // UNKNOWN_SUBSCRIPTION_ID
    clock.advance(INTERVAL)
    assert.equal(telemetry.push(push(id, sub.subscriptionId, Buffer.from('x'), { compressionType: 9 }), conn), 76) // codec
    clock.advance(INTERVAL)
    assert.equal(telemetry.push(push(id, sub.subscriptionId, Buffer.alloc(11)), conn), 118) // TELEMETRY_TOO_LARGE
    assert.equal(telemetry.lastPush(id), undefined)
    clock.advance(INTERVAL)
    const payload = Buffer.from('metrics-1')
    assert.equal(telemetry.push(push(id, sub.subscriptionId, payload, { compressionType: 4 }), conn), 0)
    payload.fill(0) // the store keeps its own copy
    const kept = telemetry.lastPush(id)
    assert.ok(kept)
    assert.equal(kept.metrics.toString(), 'metrics-1')
    assert.equal(kept.compressionType, 4)
    assert.equal(kept.clientId, 'app')
    // Too soon after the last push: throttled, unless terminating.
    assert.equal(telemetry.push(push(id, sub.subscriptionId, Buffer.from('early')), conn), 89)
    assert.equal(telemetry.push(push(id, sub.subscriptionId, Buffer.from('bye'), { terminating: true }), conn), 0)
    assert.equal(telemetry.lastPush(id)?.metrics.toString(), 'bye')
    // Nothing after a terminating push.
    clock.advance(INTERVAL)
    assert.equal(telemetry.push(push(id, sub.subscriptionId, Buffer.from('more')), conn), 42)
  })

  it('a push from an instance this broker has not seen is accepted with the computed subscription id', () => {
    const { telemetry } = setup()
    const id = 'AQIDBAUGBwgJCgsMDQ4PEA'
    assert.equal(telemetry.push(push(id, subscriptionIdOf([], INTERVAL, id), Buffer.from('m')), connection().conn), 0)
  })

  it('forgets an instance when its connection closes', () => {
    const { telemetry } = setup()
    const c = connection()
    const sub = telemetry.getSubscription(ZERO_UUID, c.conn)
    c.close()
    // A fresh instance: not throttled.
    assert.equal(telemetry.getSubscription(sub.clientInstanceId, connection(2).conn).errorCode, 0)
  })

  it('bounds the stored payloads by count and by bytes, evicting the oldest', () => {
    const { telemetry } = setup({ maxStoredPushes: 3, maxStoredBytes: 10 })
    const ids = ['AQIDBAUGBwgJCgsMDQ4PEA', 'AQIDBAUGBwgJCgsMDQ4PEB', 'AQIDBAUGBwgJCgsMDQ4PEC', 'AQIDBAUGBwgJCgsMDQ4PED']
    const send = (id: string, bytes: number) =>
      telemetry.push(push(id, subscriptionIdOf([], INTERVAL, id), Buffer.alloc(bytes, 1)), connection().conn)
    for (const id of ids) assert.equal(send(id, 2), 0)
    assert.deepEqual(
      telemetry.pushes().map((p) => p.clientInstanceId),
      ids.slice(1),
    ) // count bound 3
    const big = 'AQIDBAUGBwgJCgsMDQ4PEE'
    assert.equal(send(big, 7), 0) // 2 + 2 + 2 + 7 > 10: the two oldest go
    assert.deepEqual(
      telemetry.pushes().map((p) => p.clientInstanceId),
      [ids[3], big],
    )
    assert.ok(telemetry.pushes().reduce((n, p) => n + p.metrics.length, 0) <= 10)
  })
})
