// Client quotas in a cluster of two brokers on etcd (test/helpers/cluster.ts): a quota set through
// one broker (`tributary quota set`, AlterClientQuotas) is followed by the other through the
// metadata store's change events — DescribeClientQuotas there lists it, reading the same entities
// its throttling uses — and a deletion through the second reaches the first.
import assert from 'node:assert/strict'
import { after, before, describe, test } from 'node:test'
import { tributary } from '../helpers/cli.js'
import { waitFor } from '../helpers/clients.js'
import { type Cluster, startCluster } from '../helpers/cluster.js'

describe('client quotas across brokers', () => {
  let cluster: Cluster

  before(async () => {
    cluster = await startCluster({ brokers: 2 })
  })
  after(async () => {
    await cluster?.close()
  })

  const quota = (id: number, ...args: string[]) => tributary(['quota', ...args, '--bootstrap-server', cluster.broker(id).bootstrap])
  const listed = async (id: number) => {
    const r = await quota(id, 'list', '--client', 'shared-app', '--json')
    assert.equal(r.code, 0, r.stderr)
    return JSON.parse(r.stdout) as Array<{ values: Record<string, number> }>
  }

  test('set on one broker, seen on the other; deleted there, gone on the first', { timeout: 120_000 }, async () => {
    const set = await quota(1, 'set', '--client', 'shared-app', '--producer-byte-rate', '4096', '--request-percentage', '25')
    assert.equal(set.code, 0, set.stderr)
    let seen: Array<{ values: Record<string, number> }> = []
    await waitFor(
      async () => {
        seen = await listed(2)
        return seen.length === 1
      },
      'broker 2 lists the quota set through broker 1',
      30_000,
    )
    assert.deepEqual(seen[0]!.values, { producer_byte_rate: 4096, request_percentage: 25 })
    const del = await quota(2, 'set', '--client', 'shared-app', '--delete', 'producer_byte_rate', '--delete', 'request_percentage')
    assert.equal(del.code, 0, del.stderr)
    await waitFor(async () => (await listed(1)).length === 0, 'broker 1 no longer lists the quota deleted through broker 2', 30_000)
  })
})
