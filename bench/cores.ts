// Using more than one core: Tributary's scaling model is one broker process per core, the processes
// of a machine forming one cluster over etcd (a broker is one event loop; docs/benchmarks.md
// "Using every core"). This measures what that model costs per record against one broker alone,
// on this machine, with the same load and the same topic of 8 partitions (replication factor 1, so
// the cluster spreads them 4 and 4 and each record is handled by one process):
//   1. one broker, no etcd (a cluster of one);
//   2. two broker processes over one etcd member.
// The load is `tributary perf produce` (acks=1) then `tributary perf consume` of the same records.
// Reported: records/s, and the CPU seconds per million records of the brokers together — and of
// etcd beside them for the cluster. On a machine with more cores than the load needs, the
// throughput of the cluster grows with its processes while the cost per record stays the same; on
// 2 cores the load generator takes one of them, so the throughput says little and the cost says
// whether the model adds work.
//   node dist/bench/cores.js [records=3000000] [--rounds=3] [--json]
// Needs etcd on PATH (or ETCD_BIN).
import { spawnSync } from 'node:child_process'
import { readFileSync } from 'node:fs'
import { fileURLToPath } from 'node:url'
import { startBrokerProcess } from '../test/helpers/broker-process.js'
import { startCluster } from '../test/helpers/cluster.js'

const args = process.argv.slice(2)
const json = args.includes('--json')
const records = Number(args.find((a) => !a.startsWith('--')) ?? 3_000_000)
const rounds = Number(args.find((a) => a.startsWith('--rounds='))?.split('=')[1] ?? 3)
const CLI = fileURLToPath(new URL('../bin/tributary.js', import.meta.url))
const TICKS = 100 // USER_HZ on Linux

/** CPU seconds (user + system) of a process so far, from /proc. */
function cpuSeconds(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8')
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ')
  return (Number(fields[11]) + Number(fields[12])) / TICKS
}

function perf(kind: 'produce' | 'consume', bootstrap: string, topic: string): number {
  const load =
    kind === 'produce'
      ? ['--partitions', '8', '--num-records', String(records), '--record-size', '100', '--acks', '1']
      : ['--num-records', String(records)]
  const r = spawnSync(process.execPath, [CLI, 'perf', kind, '--bootstrap-server', bootstrap, '--topic', topic, ...load, '--json'], {
    encoding: 'utf8',
    maxBuffer: 64 << 20,
  })
  if (r.status !== 0) throw new Error(`perf ${kind} failed: ${r.stderr}`)
  return Math.round(JSON.parse(r.stdout.trim().split('\n').pop()!).recordsPerSec)
}

interface Setup {
  name: string
  bootstrap: string
  brokerPids: number[]
  etcdPid?: number
  close(): Promise<void>
}

async function one(): Promise<Setup> {
  const b = await startBrokerProcess({ overrides: { 'num.partitions': '8' } })
  return {
    name: '1 broker',
    bootstrap: b.bootstrap,
    brokerPids: [b.pid],
    close: async () => {
      await b.stop()
      await b.cleanup()
    },
  }
}

async function two(): Promise<Setup> {
  const c = await startCluster({ brokers: 2, overrides: { 'num.partitions': '8', 'default.replication.factor': '1' } })
  return {
    name: '2 brokers (one cluster)',
    bootstrap: c.bootstrap(),
    brokerPids: c.ids().map((id) => c.broker(id).pid),
    ...(c.etcd.pid !== undefined ? { etcdPid: c.etcd.pid } : {}),
    close: () => c.close(),
  }
}

interface Figures {
  setup: string
  round: number
  produceRecordsPerSec: number
  consumeRecordsPerSec: number
  /** Broker CPU seconds per million records, all brokers together. */
  produceCpuPerM: number
  consumeCpuPerM: number
  /** etcd's CPU seconds per million records over the produce and the consume (cluster only). */
  etcdCpuPerM?: number
}

async function measure(make: () => Promise<Setup>, round: number): Promise<Figures> {
  const s = await make()
  try {
    const topic = `cores-r${round}`
    const cpu = () => s.brokerPids.reduce((t, pid) => t + cpuSeconds(pid), 0)
    const e0 = s.etcdPid ? cpuSeconds(s.etcdPid) : 0
    let c0 = cpu()
    const produceRecordsPerSec = perf('produce', s.bootstrap, topic)
    const produceCpu = cpu() - c0
    c0 = cpu()
    const consumeRecordsPerSec = perf('consume', s.bootstrap, topic)
    const consumeCpu = cpu() - c0
    const perM = (x: number) => Math.round((x / records) * 1e6 * 1000) / 1000
    return {
      setup: s.name,
      round,
      produceRecordsPerSec,
      consumeRecordsPerSec,
      produceCpuPerM: perM(produceCpu),
      consumeCpuPerM: perM(consumeCpu),
      ...(s.etcdPid ? { etcdCpuPerM: perM(cpuSeconds(s.etcdPid) - e0) } : {}),
    }
  } finally {
    await s.close()
  }
}

const results: Figures[] = []
for (let round = 1; round <= rounds; round++) {
  // Alternating which goes first, so neither always meets the warmer page cache.
  for (const make of round % 2 ? [one, two] : [two, one]) {
    const f = await measure(make, round)
    results.push(f)
    if (!json) {
      console.log(
        `round ${round} ${f.setup.padEnd(24)} produce ${f.produceRecordsPerSec.toLocaleString('en')} rec/s at ${f.produceCpuPerM} s/M; consume ${f.consumeRecordsPerSec.toLocaleString('en')} rec/s at ${f.consumeCpuPerM} s/M${f.etcdCpuPerM !== undefined ? `; etcd ${f.etcdCpuPerM} s/M` : ''}`,
      )
    }
  }
}
if (json) console.log(JSON.stringify({ records, rounds, results }))
