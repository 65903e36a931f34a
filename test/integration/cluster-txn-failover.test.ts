// Transaction coordinator failover: three broker processes over etcd (test/helpers/cluster.ts),
// __transaction_state and the data topics at replication factor 3 (min.insync.replicas 2). The Java
// 4.4 program TxnFailover (test/interop/java) runs one transaction over two topics × three
// partitions; the broker that coordinates it (FindCoordinator, key type 1: the leader of its
// __transaction_state partition) is killed with kill -9
// - in the middle of the transaction (after its first half is written, before the second), and
// - during the commit (on the line the program prints just before commitTransaction, so the EndTxn
//   is on its way or being served; the commit's state change, its markers, or both are cut off).
// Each time the transaction must end as a whole: once no partition has an open transaction any more
// (read_committed end offsets = high watermarks, within the transaction timeout and then some), a
// read_committed reader sees all of its records on every partition or none on any — and all when
// the producer was told the commit succeeded. Before any kill, every send of the first half must have
// been acknowledged (else the test would prove nothing), and a kill in the middle of the transaction
// must not cost the commit: the coordinator's successor loads the open transaction and commits it.
import assert from 'node:assert/strict'
import { after, before, describe, test } from 'node:test'
import { createTopics } from '../../src/client/admin.js'
import { KafkaClient } from '../../src/client/client.js'
import { FindCoordinatorRequest, FindCoordinatorResponse } from '../../src/protocol/messages/10-find-coordinator.js'
import { type Cluster, startCluster, waitFor } from '../helpers/cluster.js'
import { javaCommand, runProcess, show } from '../helpers/run-process.js'
import { buildJavaPrograms, type JavaPrograms, javaEnv, LineProcess } from '../interop/txn-broker.js'

const WAIT_MS = 60_000
const TOPICS = ['txn-fo-a', 'txn-fo-b'] as const
const PARTITIONS = 3
/** Records per half of each transaction. */
const PER_HALF = 300

/** The node id of the transaction coordinator of transactionalId (FindCoordinator key type 1). */
async function txnCoordinator(c: Cluster, transactionalId: string): Promise<number> {
  return waitFor(
    async () => {
      const client = await KafkaClient.connect({ bootstrap: c.bootstrap().split(','), requestTimeoutMs: 10_000 })
      try {
        let version = 0
        const res = await client.request(FindCoordinatorRequest, FindCoordinatorResponse, (v) => {
          version = v
          return v >= 4 ? { keyType: 1, coordinatorKeys: [transactionalId] } : { key: transactionalId, keyType: 1 }
        })
        const [code, node] =
          version >= 4 ? [res.coordinators[0]?.errorCode ?? -1, res.coordinators[0]?.nodeId ?? -1] : [res.errorCode, res.nodeId]
        return code === 0 && node >= 0 ? node : undefined
      } finally {
        await client.close()
      }
    },
    `the transaction coordinator of ${transactionalId}`,
    WAIT_MS,
    250,
  )
}

/** The produce errors the Java client retried, counted by error (from its WARN log). */
function retries(stderr: string): string {
  const counts = new Map<string, number>()
  for (const m of stderr.matchAll(/Got error produce response .*?Error: (\w+)(?:\. Error Message: Unable to verify[^(\n]*\((\w+)\))?/g)) {
    const key = m[2] ? `${m[1]}(${m[2]})` : m[1]!
    counts.set(key, (counts.get(key) ?? 0) + 1)
  }
  return counts.size === 0 ? 'no produce retries' : `produce retries: ${[...counts].map(([k, n]) => `${n}× ${k}`).join(', ')}`
}

describe('transaction coordinator killed with kill -9 mid-transaction and mid-commit (3 brokers, RF 3)', () => {
  let c: Cluster
  let java: JavaPrograms | undefined

  before(async () => {
    const [j, cluster] = await Promise.all([
      buildJavaPrograms(),
      startCluster({
        brokers: 3,
        overrides: {
          'transaction.state.log.replication.factor': '3',
          'transaction.state.log.min.isr': '2',
          'offsets.topic.replication.factor': '3',
          'replica.lag.time.max.ms': '10000',
        },
      }),
    ])
    java = j
    c = cluster
    const client = await KafkaClient.connect({ bootstrap: c.bootstrap().split(',') })
    try {
      await createTopics(
        client,
        TOPICS.map((name) => ({ name, numPartitions: PARTITIONS, replicationFactor: 3, configs: { 'min.insync.replicas': '2' } })),
      )
    } finally {
      await client.close()
    }
    for (const t of TOPICS)
      for (let p = 0; p < PARTITIONS; p++)
        await waitFor(async () => (await c.partitionState(t, p)).leader > 0 || undefined, `${t}-${p} has a leader`, WAIT_MS)
  })

  after(async () => {
    await c?.close()
    java?.remove()
  })

  const javaArgs = (mode: string, txnId: string, last: string) => [
    '-cp',
    java!.classpath,
    'io.tributary.interop.TxnFailover',
    mode,
    c.bootstrap(),
    ...TOPICS,
    String(PARTITIONS),
    txnId,
    last,
  ]

  async function scenario(txnId: string, killAt: 'SENT' | 'COMMITTING'): Promise<void> {
    const p = LineProcess.start(javaCommand(), javaArgs('run', txnId, String(PER_HALF)), javaEnv())
    let killed = -1
    try {
      await p.waitLine((l) => l === 'READY', 'initTransactions', WAIT_MS)
      const coordinator = await txnCoordinator(c, txnId)
      const sent = await p.waitLine((l) => l.startsWith('SENT '), 'the first half sent', WAIT_MS)
      // Before any kill: every record of the first half is acknowledged.
      assert.equal(
        sent.split(' ')[2],
        '0',
        `sends of the first half failed before any broker was killed (${sent}); ${retries(p.stderr)}: ${p.context()}`,
      )
      if (killAt === 'SENT') {
        await c.kill9(coordinator)
        killed = coordinator
        p.send('GO')
      } else {
        p.send('GO')
        await p.waitLine((l) => l === 'COMMITTING', 'the commit', WAIT_MS)
        await c.kill9(coordinator)
        killed = coordinator
      }
      const outcome = await p.waitLine((l) => /^(COMMITTED|ABORTED|ABORT-FAILED|TXNFAILOVER FAIL)/.test(l), 'the outcome', 2 * WAIT_MS)
      const exit = await p.exited
      assert.equal(exit.code, 0, `TxnFailover run failed: ${p.context()}`)
      const v = await runProcess(javaCommand(), javaArgs('verify', txnId, '60000'), { timeoutMs: 3 * WAIT_MS, env: javaEnv() })
      const context = () =>
        `${show(v)}\nproducer:\n${p.context()}\n${c
          .liveIds()
          .map((id) => `broker ${id}:\n${c.stderr(id).slice(-3000)}`)
          .join('\n')}`
      assert.equal(v.code, 0, `verify failed: ${context()}`)
      const m = /^VISIBLE (\d+) ([\d,]+)/m.exec(v.stdout)
      assert.ok(m, context())
      const total = Number(m[1])
      const perPartition = m[2]!.split(',').map(Number)
      const all = 2 * PER_HALF
      const each = all / (TOPICS.length * PARTITIONS)
      assert.ok(
        perPartition.every((n) => n === 0) || perPartition.every((n) => n === each),
        `the transaction is half visible: ${total} of ${all} records, per partition ${perPartition}: ${context()}`,
      )
      // A coordinator that moves in the middle of a transaction is invisible to the producer (its
      // successor loads the transaction from __transaction_state): the commit succeeds.
      if (killAt === 'SENT') assert.match(outcome, /^COMMITTED/, `the commit failed after the coordinator moved: ${context()}`)
      if (outcome.startsWith('COMMITTED'))
        assert.equal(total, all, `the commit succeeded but ${total} of ${all} records are visible: ${context()}`)
      console.log(
        `cluster-txn-failover: coordinator ${killed} killed at ${killAt}: ${total} of ${all} records visible; producer: ${p.lines.filter((l) => /^(SENT|COMMIT|ABORT)/.test(l)).join(' | ')}; ${retries(p.stderr)}`,
      )
    } finally {
      await p.kill9()
      if (killed > 0) await c.restart(killed)
    }
  }

  test('killed mid-transaction: the transaction commits or aborts as a whole', { timeout: 5 * WAIT_MS }, async () => {
    await scenario('txn-fo-mid', 'SENT')
  })

  test('killed during the commit: the transaction commits or aborts as a whole', { timeout: 5 * WAIT_MS }, async () => {
    await scenario('txn-fo-commit', 'COMMITTING')
  })
})
