// A broker's etcd client given every member of a 3-member etcd cluster (etcd.endpoints) fails
// over when the member it talks to dies: each member in turn — the raft leader first — is killed
// (kill -9) while an EtcdMembership and an EtcdMetadataStore run on one client of all three
// endpoints; with the member down, the store's writes commit and come back through its watch, a
// write by another broker's client reaches the store's image, and the membership keeps its lease
// (its registration is never lost and re-made), then the member is restarted on its data dir.
// Killing the three members one after the other kills the member the client was using at least
// once, whichever it picked.
import assert from 'node:assert/strict'
import { randomBytes } from 'node:crypto'
import { after, before, describe, it } from 'node:test'
import type { Etcd3 } from 'etcd3'
import { newEtcdClient } from '../../../src/cluster/etcd-broker.js'
import { EtcdMembership } from '../../../src/cluster/etcd-membership.js'
import { EtcdMetadataStore } from '../../../src/cluster/etcd-store.js'
import { ManualClock, systemClock } from '../../../src/util/clock.js'
import { silentLogger } from '../../../src/util/logger.js'
import { type EtcdCluster, startEtcdCluster } from '../../helpers/etcd.js'
import { topic } from './metadata-store-contract.js'

const SESSION_TIMEOUT_MS = 2000

let etcd: EtcdCluster
const clients: Etcd3[] = []
const closers: Array<() => Promise<void>> = []

before(async () => {
  etcd = await startEtcdCluster(3)
})
after(async () => {
  for (const c of closers) await c().catch(() => {})
  for (const c of clients) c.close()
  await etcd?.stop()
})

function newClient(endpoints: string[]): Etcd3 {
  const c = newEtcdClient(endpoints)
  clients.push(c)
  return c
}

async function eventually(what: string, check: () => boolean): Promise<void> {
  const deadline = Date.now() + 30_000
  while (!check()) {
    if (Date.now() > deadline) assert.fail(`timed out waiting until ${what}`)
    await new Promise((r) => setTimeout(r, 20))
  }
}

/** The lease that holds brokers/<id>, read through a client of the live members. */
async function registrationLease(client: Etcd3, prefix: string, id: number): Promise<string | undefined> {
  const res = await client.get(`${prefix}/brokers/${id}`).exec()
  return res.kvs[0]?.lease
}

describe('etcd client failover (3 members)', () => {
  it('membership and metadata store carry on while each member in turn is down', { timeout: 240_000 }, async () => {
    const prefix = `/failover-${randomBytes(6).toString('hex')}`
    const client = newClient(etcd.endpoints)
    const store = await EtcdMetadataStore.open({ client, prefix, clock: new ManualClock(1_700_000_000_000), logger: silentLogger })
    closers.push(() => store.close())
    const membership = await EtcdMembership.start({
      client,
      prefix,
      nodeId: 1,
      rack: null,
      endpoints: [{ listener: 'PLAINTEXT', host: '127.0.0.1', port: 9001, securityProtocol: 'PLAINTEXT' }],
      sessionTimeoutMs: SESSION_TIMEOUT_MS,
      clock: systemClock,
      logger: silentLogger,
    })
    closers.push(() => membership.close())
    await eventually('broker 1 registered and controller', () => membership.isController)
    const lease = await registrationLease(newClient(etcd.endpoints), prefix, 1)
    assert.ok(lease && lease !== '0', `registration lease ${lease}`)

    const leader = await etcd.leader()
    assert.notEqual(leader, undefined, 'the members name a leader')
    const order = [leader!, ...[0, 1, 2].filter((i) => i !== leader)]
    for (const [round, i] of order.entries()) {
      const member = etcd.members[i]!
      await member.kill9()
      const others = etcd.members.filter((m) => m !== member).map((m) => m.endpoint)
      // A write by this broker's store: committed by the two live members and seen by its watch.
      const own = await store.createTopic(topic(`own-${round}`))
      assert.equal(store.getTopic(`own-${round}`)?.topicId, own.topicId)
      // A write by another broker (a client of the live members only) reaches this store's image.
      const otherStore = await EtcdMetadataStore.open({
        client: newClient(others),
        prefix,
        clock: new ManualClock(1_700_000_000_000),
        logger: silentLogger,
      })
      await otherStore.createTopic(topic(`other-${round}`))
      await otherStore.close()
      await eventually(
        `other-${round} in the store's image (member ${member.name} down)`,
        () => store.getTopic(`other-${round}`) !== undefined,
      )
      // Longer than the lease's TTL: keep-alives went through another member, so it still holds.
      await new Promise((r) => setTimeout(r, SESSION_TIMEOUT_MS * 2))
      assert.equal(
        await registrationLease(newClient(others), prefix, 1),
        lease,
        `member ${member.name} down: the registration's lease changed`,
      )
      assert.ok(membership.leaseValid, `member ${member.name} down: broker 1 lost its lease`)
      assert.ok(membership.isController, `member ${member.name} down: broker 1 is no longer controller`)
      await member.restart()
    }
  })
})
