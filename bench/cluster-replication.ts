// Replicated produce throughput and failover time of a three-broker cluster over etcd, on this
// machine (etcd and the three brokers and the load generator share its cores):
//   1. `tributary perf produce` into a topic with replication factor 3 (8 partitions,
//      min.insync.replicas=2), 100-byte records, at acks=1 and at acks=all;
//   2. failover: the leader of a partition is killed with kill -9 while a client writes to it at
//      acks=all, retrying every 50 ms with fresh metadata; the time from the kill to the first
//      write sent after it that is acknowledged, repeated. It is bounded below by
//      broker.session.timeout.ms (the dead leader's lease must expire); a Kafka client's retry
//      back-off adds to it.
//   node dist/bench/cluster-replication.js [records=2000000] [--kills=3] [--session-timeout-ms=2000] [--json]
// Needs etcd on PATH (or ETCD_BIN).
import { spawnSync } from 'node:child_process'
import { fileURLToPath } from 'node:url'
import { createTopics } from '../src/client/admin.js'
import { KafkaClient } from '../src/client/client.js'
import { ProduceRequest, ProduceResponse } from '../src/protocol/messages/00-produce.js'
import { buildRecordBatch } from '../src/protocol/records/builder.js'
import { startCluster, waitFor } from '../test/helpers/cluster.js'

const args = process.argv.slice(2)
const flag = (name: string, dflt: number) => Number(args.find((a) => a.startsWith(`--${name}=`))?.split('=')[1] ?? dflt)
const json = args.includes('--json')
const records = Number(args.find((a) => !a.startsWith('--')) ?? 2_000_000)
const kills = flag('kills', 3)
const sessionTimeoutMs = flag('session-timeout-ms', 2000)
const CLI = fileURLToPath(new URL('../bin/tributary.js', import.meta.url))

function perf(bootstrap: string, topic: string, acks: string): { recordsPerSec: number; p99Ms: number } {
  const r = spawnSync(
    process.execPath,
    [
      CLI,
      'perf',
      'produce',
      '--bootstrap-server',
      bootstrap,
      '--topic',
      topic,
      '--partitions',
      '8',
      '--num-records',
      String(records),
      '--record-size',
      '100',
      '--acks',
      acks,
      '--json',
    ],
    { encoding: 'utf8', maxBuffer: 64 << 20 },
  )
  if (r.status !== 0) throw new Error(`perf produce failed: ${r.stderr}`)
  const s = JSON.parse(r.stdout.trim().split('\n').pop()!)
  return { recordsPerSec: Math.round(s.recordsPerSec), p99Ms: s.latencyMs?.p99 ?? s.p99Ms ?? -1 }
}

/** One acks=all write of one record to partition 0's leader (metadata refreshed); true when acknowledged. */
async function writeOnce(client: KafkaClient, topic: string): Promise<boolean> {
  try {
    await client.metadata([topic], { refresh: true })
    const leader = client.leaderOf(topic, 0)
    if (leader < 0) return false
    const res = await client.request(
      ProduceRequest,
      ProduceResponse,
      {
        transactionalId: null,
        acks: -1,
        timeoutMs: 5000,
        topicData: [
          { name: topic, partitionData: [{ index: 0, records: buildRecordBatch({ records: [{ key: null, value: Buffer.from('x') }] }) }] },
        ],
      },
      { nodeId: leader, maxVersion: 12 }, // by topic name (v13 names topics by id)
    )
    return res.responses[0]?.partitionResponses[0]?.errorCode === 0
  } catch {
    return false
  }
}

const cluster = await startCluster({
  brokers: 3,
  sessionTimeoutMs,
  overrides: { 'default.replication.factor': '3', 'min.insync.replicas': '2', 'num.partitions': '8' },
})
try {
  const bootstrap = cluster.bootstrap()
  const acks1 = perf(bootstrap, 'rf3-acks1', '1')
  const acksAll = perf(bootstrap, 'rf3-acksall', 'all')

  const failoverMs: number[] = []
  const client = await KafkaClient.connect({ bootstrap: bootstrap.split(','), requestTimeoutMs: 5000 })
  await createTopics(client, [{ name: 'rf3-failover', numPartitions: 1 }])
  await waitFor(async () => ((await cluster.partitionState('rf3-failover', 0)).leader > 0 ? true : undefined), 'a leader', 60_000)
  for (let k = 0; k < kills; k++) {
    await waitFor(async () => ((await writeOnce(client, 'rf3-failover')) ? true : undefined), 'a first write', 60_000)
    const leader = await cluster.leaderOf('rf3-failover', 0)
    const at = performance.now()
    await cluster.kill9(leader)
    // Only a write sent after the kill counts; a client retrying every 50 ms, refreshing metadata.
    while (!(await writeOnce(client, 'rf3-failover'))) await new Promise((r) => setTimeout(r, 50))
    failoverMs.push(Math.round(performance.now() - at))
    await cluster.restart(leader)
    await waitFor(
      async () => ((await cluster.partitionState('rf3-failover', 0)).isr.length === 3 ? true : undefined),
      'ISR back to 3',
      60_000,
    )
  }
  await client.close()
  const result = { records, sessionTimeoutMs, acks1, acksAll, failoverMs }
  if (json) console.log(JSON.stringify(result))
  else {
    console.log(`RF=3, 8 partitions, 100-byte records, ${records} records (tributary perf produce):`)
    console.log(`  acks=1    ${acks1.recordsPerSec.toLocaleString('en')} records/s, p99 ${acks1.p99Ms} ms`)
    console.log(`  acks=all  ${acksAll.recordsPerSec.toLocaleString('en')} records/s, p99 ${acksAll.p99Ms} ms`)
    console.log(
      `failover (kill -9 of the leader to the first acks=all write acknowledged after it, session timeout ${sessionTimeoutMs} ms): ${failoverMs.join(', ')} ms`,
    )
  }
} finally {
  await cluster.close()
}
