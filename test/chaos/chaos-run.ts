// One chaos run: a 3-broker cluster over a 3-member etcd, behind fault proxies (chaos-cluster.ts), the workload
// (workload.ts) for `seconds` under the nemesis (nemesis.ts), then — faults healed, every broker
// running — the producers stop, the final read reads every partition to its high watermark, the
// share-group members drain the topic (until each acknowledged send was handed to one), the
// brokers stop cleanly and each replica's log is read from its data dir: below the high watermark
// the replicas must be equal byte for byte, and their records join the history. checker.ts judges
// the whole history. Everything random is drawn from the seed.
import { writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { type Cluster, compareReplicas, readPartitionLog, recordsOf, waitFor } from '../helpers/cluster.js'
import { ATTRIBUTES_OFFSET, CONTROL_MASK } from '../../src/protocol/records/batch.js'
import { sleep } from '../helpers/clients.js'
import { type Anomaly, anomalyTotal, type CheckReport, check } from './checker.js'
import { startChaosCluster } from './chaos-cluster.js'
import type { History, Op } from './history.js'
import { type Fault, Nemesis, type NemesisKind, seededRandom } from './nemesis.js'
import { buildJavaPrograms } from '../interop/txn-broker.js'
import { Workload } from './workload.js'

export interface ChaosOptions {
  seed: number
  seconds: number
  nemeses: NemesisKind[]
  partitions?: number
  transactions?: boolean
  /** Members of the workload's share group (KIP-932). Default 2; 0 leaves share groups out. */
  shareMembers?: number
  /** Members of the same group through the Java KafkaShareConsumer (needs java and mvn). Default 0. */
  javaShareMembers?: number
  /** The nemesis's calm spells and fault lengths, ms (nemesis.ts has the defaults). */
  calmMs?: [number, number]
  faultMs?: [number, number]
  /** Writes each broker's stderr (over its restarts) to <dir>/b<id>.log at the end. */
  brokerLogDir?: string
  /** Progress lines every this many ms. Default 5000. */
  progressMs?: number
  log?: (line: string) => void
}

export interface ChaosReport extends CheckReport {
  seed: number
  seconds: number
  nemeses: NemesisKind[]
  faults: Fault[]
  faultCounts: Record<string, number>
  /** Connections through the proxies, how many were between brokers, and how many a cut held. */
  proxy: { connections: number; brokerToBroker: number; held: number }
  highWatermarks: Record<number, number>
  /** From the brokers' stderr: etcd leases lost (registration re-made), halts on a failed log dir. */
  brokerEvents: { leaseLosses: number; logDirHalts: number }
  history: History
  total: number
}

const TOPIC = 'chaos'
const GROUP = 'chaos-group'
const SETTLE_MS = 90_000

async function waitForFullIsr(cluster: Cluster, partitions: number, timeoutMs: number): Promise<Map<number, number[]>> {
  const isr = new Map<number, number[]>()
  try {
    await waitFor(
      async () => {
        for (let p = 0; p < partitions; p++) isr.set(p, (await cluster.partitionState(TOPIC, p)).isr)
        return [...isr.values()].every((x) => x.length === cluster.ids().length) ? true : undefined
      },
      'every partition back to a full ISR',
      timeoutMs,
      250,
    )
  } catch {
    // compare what is in sync
  }
  return isr
}

export async function chaosRun(o: ChaosOptions): Promise<ChaosReport> {
  const log = o.log ?? (() => {})
  const partitions = o.partitions ?? 3
  // Two generators: the workload draws as fast as it runs, so the nemesis's schedule must not share them.
  const random = seededRandom(o.seed ^ 0x5bd1e995)
  const nemesisRandom = seededRandom(o.seed)
  log(
    `chaos: seed ${o.seed}, ${o.seconds} s, nemesis ${o.nemeses.join(',') || 'none'}, ${partitions} partitions${o.transactions ? ', transactions' : ''}`,
  )
  const java = o.javaShareMembers ? await buildJavaPrograms() : undefined
  const cc = await startChaosCluster({
    brokers: 3,
    topic: TOPIC,
    partitions,
    disk: o.nemeses.includes('disk'),
    power: o.nemeses.includes('power'),
  })
  try {
    const workload = new Workload({
      bootstrap: cc.bootstrap,
      topic: TOPIC,
      partitions,
      groupId: GROUP,
      transactions: o.transactions ?? false,
      random,
      shareMembers: o.shareMembers ?? 2,
      javaShareMembers: o.javaShareMembers ?? 0,
      ...(java ? { javaClasspath: java.classpath } : {}),
    })
    await workload.prepare()
    const nemesis = new Nemesis({
      cc,
      kinds: o.nemeses,
      topic: TOPIC,
      partitions,
      groupId: GROUP,
      random: nemesisRandom,
      now: () => workload.now(),
      log,
      calmMs: o.calmMs,
      faultMs: o.faultMs,
    })
    workload.run()
    nemesis.start()
    const progress = setInterval(() => {
      const c = workload.counts()
      log(
        `chaos @${(workload.now() / 1000).toFixed(0)}s: ${c.sendsOk} sends ok, ${c.sendsUnknown} unknown, ${c.polls} polls (${c.read} records), ${c.shareDelivered} share deliveries, ${nemesis.faults.length} faults`,
      )
    }, o.progressMs ?? 5000)
    await sleep(o.seconds * 1000)
    await nemesis.stop()
    cc.net.heal()
    for (const id of cc.cluster.ids()) {
      if (cc.cluster.state(id) === 'paused') cc.cluster.resume(id)
      if (cc.cluster.state(id) === 'stopped') await cc.cluster.restart(id)
    }
    log('chaos: faults healed; stopping the producers')
    await workload.stopProducers()
    clearInterval(progress)
    await waitForFullIsr(cc.cluster, partitions, SETTLE_MS)
    log('chaos: final read')
    const hw = await workload.finalRead(SETTLE_MS)
    const drainStart = Date.now()
    const notHanded = await workload.shareDrain(SETTLE_MS)
    log(`chaos: share-group drain: ${Date.now() - drainStart} ms, ${notHanded} acknowledged sends not handed to a member`)
    // Give the consumers a moment to reach the end too, then stop them.
    await sleep(2000)
    await workload.stopConsumers()
    const isr = await waitForFullIsr(cc.cluster, partitions, 30_000)
    for (const id of cc.cluster.ids()) await cc.cluster.stop(id)

    const extra: Anomaly[] = []
    const history = workload.history
    for (let p = 0; p < partitions; p++) {
      const upTo = hw.get(p) ?? 0
      const inSync = isr.get(p) ?? cc.cluster.ids()
      const logs = new Map(inSync.map((id) => [id, readPartitionLog(cc.cluster.dataDir(id), TOPIC, p)]))
      const diff = compareReplicas(logs, upTo)
      if (diff !== null) extra.push({ class: 'replica-divergence', partition: p, description: `partition ${p}: ${diff}`, ops: [] })
      for (const [id, batches] of logs) {
        // Transaction markers (control batches) hold offsets but no value of the workload.
        const records = recordsOf(batches.filter((b) => (b.bytes.readInt16BE(ATTRIBUTES_OFFSET) & CONTROL_MASK) === 0))
          .filter((r) => r.offset < upTo && r.value !== null)
          .map((r) => ({ offset: r.offset, value: r.value! }))
        history.push({ type: 'replica', process: `replica-${id}`, time: workload.now(), partition: p, records })
      }
    }
    const brokerEvents = { leaseLosses: 0, logDirHalts: 0 }
    for (const id of cc.cluster.ids()) {
      const err = cc.cluster.stderr(id)
      if (o.brokerLogDir) writeFileSync(join(o.brokerLogDir, `b${id}.log`), err)
      brokerEvents.leaseLosses += err.match(/lost the etcd lease/g)?.length ?? 0
      brokerEvents.logDirHalts += err.match(/log dir failed: stopping the broker/g)?.length ?? 0
    }
    const result = check(history, extra)
    const faultCounts: Record<string, number> = {}
    for (const f of nemesis.faults) faultCounts[f.kind] = (faultCounts[f.kind] ?? 0) + 1
    return {
      ...result,
      seed: o.seed,
      seconds: o.seconds,
      nemeses: o.nemeses,
      faults: nemesis.faults,
      faultCounts,
      proxy: { ...cc.net.counts },
      highWatermarks: Object.fromEntries(hw),
      brokerEvents,
      history,
      total: anomalyTotal(result),
    }
  } finally {
    await cc.close()
    java?.remove()
  }
}

/** One op on a line; a long list of records is cut to its ends. */
export function describeOp(op: Op): string {
  if ((op.type !== 'poll' && op.type !== 'replica') || op.records.length <= 8) return JSON.stringify(op)
  const r = op.records
  const show = (xs: typeof r) => xs.map((x) => `${x.offset}=${x.value}`).join(' ')
  const { records: _records, ...rest } = op
  return `${JSON.stringify(rest)} records (${r.length}): ${show(r.slice(0, 4))} … ${show(r.slice(-4))}`
}

/** The summary lines of a report (no history). */
export function summary(r: ChaosReport): string {
  const lines = [
    `chaos summary: seed ${r.seed}, ${r.seconds} s, nemesis ${r.nemeses.join(',') || 'none'}`,
    `  operations: ${r.stats.sendsOk} sends ok, ${r.stats.sendsFailed} failed, ${r.stats.sendsUnknown} unknown; ${r.stats.polls} polls, ${r.stats.recordsRead} records read; ${r.stats.txns} transactions`,
    `  share group: ${r.stats.shareDeliveries} deliveries (${r.stats.shareRedeliveries} redeliveries)`,
    `  faults: ${r.faults.length} (${
      Object.entries(r.faultCounts)
        .map(([k, v]) => `${k} ${v}`)
        .join(', ') || 'none'
    }); proxy: ${r.proxy.connections} connections (${r.proxy.brokerToBroker} broker to broker), ${r.proxy.held} held by cuts`,
    `  high watermarks: ${Object.entries(r.highWatermarks)
      .map(([p, o]) => `${p}:${o}`)
      .join(' ')}`,
    `  brokers: ${r.brokerEvents.leaseLosses} etcd leases lost, ${r.brokerEvents.logDirHalts} halts on a failed log dir`,
    `  anomalies: ${Object.entries(r.counts)
      .map(([k, v]) => `${k} ${v}`)
      .join(', ')}`,
  ]
  for (const a of r.anomalies) {
    lines.push(`  ${a.class}: ${a.description}`)
    for (const op of a.ops) lines.push(`      ${describeOp(op)}`)
  }
  return lines.join('\n')
}
