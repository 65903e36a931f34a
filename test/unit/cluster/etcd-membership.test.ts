// EtcdMembership against a real etcd server: registration under a lease, refusal of a duplicate
// broker id, the controller election and its hand-over on a clean close, on a crash (keep-alives
// stop, the lease expires) and on a lost lease (the broker registers again).
import assert from 'node:assert/strict'
import { randomBytes } from 'node:crypto'
import { after, before, describe, it } from 'node:test'
import type { Etcd3 } from 'etcd3'
import { newEtcdClient } from '../../../src/cluster/etcd-broker.js'
import { BrokerIdInUseError, type ControllerState, EtcdMembership } from '../../../src/cluster/etcd-membership.js'
import { systemClock } from '../../../src/util/clock.js'
import { silentLogger } from '../../../src/util/logger.js'
import { type EtcdServer, startEtcd, TcpProxy } from '../../helpers/etcd.js'

/** The smallest lease etcd grants (2 s), so expiries happen quickly. */
const SESSION_TIMEOUT_MS = 2000

let etcd: EtcdServer
let admin: Etcd3
const clients: Etcd3[] = []
const members: EtcdMembership[] = []

before(async () => {
  etcd = await startEtcd()
  admin = newClient()
})
after(async () => {
  for (const m of members) await m.close().catch(() => {})
  for (const c of clients) c.close()
  await etcd?.stop()
})

function newClient(endpoint = etcd.endpoint): Etcd3 {
  const c = newEtcdClient([endpoint])
  clients.push(c)
  return c
}

const freshPrefix = () => `/test-${randomBytes(6).toString('hex')}`

async function join(prefix: string, nodeId: number, client = newClient()): Promise<EtcdMembership> {
  const m = await EtcdMembership.start({
    client,
    prefix,
    nodeId,
    rack: nodeId % 2 === 0 ? 'rack-a' : null,
    endpoints: [{ listener: 'PLAINTEXT', host: '127.0.0.1', port: 9000 + nodeId, securityProtocol: 'PLAINTEXT' }],
    sessionTimeoutMs: SESSION_TIMEOUT_MS,
    clock: systemClock,
    logger: silentLogger,
  })
  members.push(m)
  return m
}

async function eventually(what: string, check: () => boolean): Promise<void> {
  const deadline = Date.now() + 30_000
  while (!check()) {
    if (Date.now() > deadline) assert.fail(`timed out waiting until ${what}`)
    await new Promise((r) => setTimeout(r, 20))
  }
}

const ids = (m: EtcdMembership) => m.brokers().map((b) => b.nodeId)

describe('EtcdMembership', () => {
  it('registers brokers under a lease and elects exactly one controller that all agree on', async () => {
    const prefix = freshPrefix()
    const [m1, m2, m3] = await Promise.all([join(prefix, 1), join(prefix, 2), join(prefix, 3)])
    const all = [m1, m2, m3]
    await eventually('every broker sees all three', () => all.every((m) => ids(m).join() === '1,2,3'))
    await eventually('one controller elected', () => all.every((m) => m.controllerId !== -1 && m.controllerId === m1.controllerId))
    assert.equal(all.filter((m) => m.isController).length, 1, 'exactly one broker believes it is controller')
    const controller = all.find((m) => m.isController)!
    assert.equal(all.indexOf(controller) + 1, m1.controllerId)
    assert.ok(m1.controllerEpoch > 0 && all.every((m) => m.controllerEpoch === m1.controllerEpoch))
    assert.deepEqual(m2.brokers()[1], {
      nodeId: 2,
      rack: 'rack-a',
      endpoints: [{ listener: 'PLAINTEXT', host: '127.0.0.1', port: 9002, securityProtocol: 'PLAINTEXT' }],
      registeredMs: m2.brokers()[1]!.registeredMs,
    })
    // Both keys are attached to the registering broker's lease.
    const reg = await admin.get(`${prefix}/brokers/2`).exec()
    assert.notEqual(reg.kvs[0]!.lease, '0')
    const ctl = await admin.get(`${prefix}/controller`).exec()
    assert.equal(JSON.parse(ctl.kvs[0]!.value.toString()).nodeId, m1.controllerId)
    for (const m of all) await m.close()
    assert.equal((await admin.getAll().prefix(`${prefix}/`).keys()).length, 0, 'a clean close removes the keys at once')
  })

  it('refuses a second broker with the same id, with a clear error', async () => {
    const prefix = freshPrefix()
    const first = await join(prefix, 7)
    await assert.rejects(join(prefix, 7), (e: unknown) => {
      assert.ok(e instanceof BrokerIdInUseError, String(e))
      assert.match(e.message, /broker\.id 7 is already registered/)
      assert.match(e.message, /127\.0\.0\.1:9007/)
      assert.match(e.message, /another id/)
      return true
    })
    assert.deepEqual(ids(first), [7], 'the first broker keeps its registration')
    await first.close()
  })

  it('hands the controller over at once on a clean close, with change events', async () => {
    const prefix = freshPrefix()
    const a = await join(prefix, 1)
    await eventually('a is controller', () => a.isController)
    const b = await join(prefix, 2)
    const seen: ControllerState[] = []
    b.onControllerChange((s) => seen.push(s))
    const epoch = a.controllerEpoch
    await a.close()
    assert.equal(a.isController, false)
    await eventually('b takes over', () => b.isController)
    assert.equal(b.controllerId, 2)
    assert.ok(b.controllerEpoch > epoch, 'the controller epoch grows')
    assert.deepEqual(seen.at(-1), { controllerId: 2, controllerEpoch: b.controllerEpoch, isController: true })
    await eventually('b no longer lists a', () => ids(b).join() === '2')
    await b.close()
  })

  it('replaces a controller cut off from etcd once its lease expires; the cut-off one steps down by its own clock', async () => {
    const prefix = freshPrefix()
    const proxy = await TcpProxy.start(etcd.port)
    try {
      const a = await join(prefix, 1, newClient(proxy.endpoint))
      await eventually('a is controller', () => a.isController)
      const b = await join(prefix, 2)
      await eventually('b sees a as controller', () => b.controllerId === 1)
      // As a crash looks to etcd: keep-alives stop and nothing is revoked; the lease expires after its TTL.
      proxy.pause()
      await eventually('b becomes controller', () => {
        assert.ok(!(a.isController && b.isController), 'never two brokers that believe they are controller')
        return b.isController
      })
      assert.equal(b.controllerId, 2)
      assert.equal(a.isController, false, 'the cut-off broker no longer calls itself controller')
      await eventually('b no longer lists a', () => ids(b).join() === '2')
      // A restarted broker 1 (a new process) joins, and is not controller.
      const again = await join(prefix, 1)
      await eventually('both registered', () => ids(b).join() === '1,2' && ids(again).join() === '1,2')
      assert.equal(again.isController, false)
      assert.equal(again.controllerId, 2)
      await again.close()
      await b.close()
    } finally {
      await proxy.close()
    }
  })

  it('a restarted broker waits for its crashed predecessor registration to expire', async () => {
    const prefix = freshPrefix()
    const proxy = await TcpProxy.start(etcd.port)
    try {
      await join(prefix, 4, newClient(proxy.endpoint))
      proxy.pause()
      // Registered again right away: the old key stays until its lease runs out, then this one gets in.
      const restarted = await join(prefix, 4)
      assert.deepEqual(ids(restarted), [4])
      const reg = await admin.get(`${prefix}/brokers/4`).exec()
      assert.equal(reg.kvs.length, 1)
      await restarted.close()
    } finally {
      await proxy.close()
    }
  })

  it('registers again under a new lease when its lease is lost', async () => {
    const prefix = freshPrefix()
    const a = await join(prefix, 1)
    const b = await join(prefix, 2)
    await eventually('a controller is elected', () => a.controllerId !== -1 && b.controllerId === a.controllerId)
    const before = (await admin.get(`${prefix}/brokers/1`).exec()).kvs[0]!.lease
    // etcd drops the lease (as after a long pause): both of a's keys go with it.
    await admin.leaseClient.leaseRevoke({ ID: before })
    let after: string | undefined
    const deadline = Date.now() + 30_000
    while (after === undefined || after === before) {
      assert.ok(Date.now() < deadline, 'a registered again under another lease')
      await new Promise((r) => setTimeout(r, 50))
      after = (await admin.get(`${prefix}/brokers/1`).exec()).kvs[0]?.lease
    }
    await eventually('b lists a again', () => ids(b).join() === '1,2')
    await eventually('one controller again', () => a.controllerId !== -1 && a.controllerId === b.controllerId)
    assert.equal([a, b].filter((m) => m.isController).length, 1)
    await a.close()
    await b.close()
  })
})
