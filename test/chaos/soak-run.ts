// One soak run: a `tributary start` process (test/helpers/broker-process.ts) on fixed ports and one
// data directory for the whole run, small segments and retention so that deletion and compaction
// run all the time, the mixed load of soak-load.ts, a restart every restartEverySeconds (SIGTERM and
// kill -9 by turns, the first chosen by the seed; each interval's length jittered ±20 % by the
// seed), and a sample (soak-sample.ts) every sampleEverySeconds with a progress line.
//
// At the end: the producers stop; the logs are read whole and the group consumers get up to a
// minute to see every acknowledged record (soak-check.ts); then everything stops and the verdict
// is: no leak and no limit passed (judge), every acknowledged record in the log and seen by both
// groups, no aborted record read, every SIGTERM answered with exit code 0, and every interval of
// the load made progress (records acknowledged, share-group deliveries, SSE events). The report
// lists each failed check as a problem; soak-main.ts exits non-zero when there is one.
import { setTimeout as sleep } from 'node:timers/promises'
import { createTopics, listOffsets, OffsetSpec } from '../../src/client/admin.js'
import { KafkaClient } from '../../src/client/client.js'
import { seededRandom } from '../../src/util/seeded-random.js'
import { type BrokerProcess, makeTempDir, startBrokerProcess } from '../helpers/broker-process.js'
import { freePort } from '../helpers/etcd.js'
import { checkConsumers, checkLogs, type RecordFigures, readTopic, type TopicContents, unseenBy } from './soak-check.js'
import { newLedger, startLoad, TOPICS } from './soak-load.js'
import { DEFAULT_LIMITS, judge, percentile, type Sample, type SoakLimits, sampleBroker } from './soak-sample.js'

export interface SoakOptions {
  seed: number
  seconds: number
  restartEverySeconds: number
  sampleEverySeconds?: number
  /** Records per second of each producer. Default 50. */
  rate?: number
  limits?: SoakLimits
  log?: (line: string) => void
}

export interface Restart {
  t: number
  kind: 'SIGTERM' | 'kill -9'
  exitCode: number | null
}

export interface SoakReport {
  seed: number
  seconds: number
  restarts: Restart[]
  samples: Sample[]
  records: RecordFigures
  counts: Record<string, number>
  problems: string[]
}

const BROKER_SETTINGS: Record<string, string> = {
  'num.partitions': '1',
  'group.initial.rebalance.delay.ms': '0',
  'log.segment.bytes': String(1024 * 1024),
  'log.retention.check.interval.ms': '5000',
  'log.cleaner.backoff.ms': '2000',
}

/** The counters whose growth in every interval shows the load kept running. */
const PROGRESS: ReadonlyArray<[string, (c: Record<string, number>) => number]> = [
  ['records acknowledged', (c) => Object.entries(c).reduce((n, [k, v]) => (k.endsWith(' acked') ? n + v : n), 0)],
  ['share-group deliveries', (c) => c['share delivered'] ?? 0],
  ['SSE events', (c) => c['sse events'] ?? 0],
]

const mib = (x: number) => Math.round(x)

export async function soakRun(opts: SoakOptions): Promise<SoakReport> {
  const log = opts.log ?? (() => {})
  const limits = opts.limits ?? DEFAULT_LIMITS
  const sampleEvery = (opts.sampleEverySeconds ?? 5) * 1000
  const rand = seededRandom(opts.seed)
  const dir = makeTempDir('tributary-soak-')
  const [port, httpPort] = [await freePort(), await freePort()]
  const overrides = {
    ...BROKER_SETTINGS,
    listeners: `PLAINTEXT://127.0.0.1:${port}`,
    'tributary.http.listeners': `http://127.0.0.1:${httpPort}`,
  }
  const http = `http://127.0.0.1:${httpPort}`
  const problems: string[] = []
  const restarts: Restart[] = []
  const samples: Sample[] = []
  const ledger = newLedger()
  let broker: BrokerProcess = await startBrokerProcess({ dataDir: dir.path, overrides })
  const admin = await KafkaClient.connect({ bootstrap: [broker.bootstrap], clientId: 'soak-admin' })
  const started = performance.now()
  const elapsed = () => Math.round((performance.now() - started) / 1000)
  try {
    for (const r of await createTopics(
      admin,
      TOPICS.map((t) => ({ name: t.name, numPartitions: t.partitions, replicationFactor: 1, configs: t.configs })),
    ))
      if (r.error) throw new Error(`creating ${r.name}: ${r.error}`)
    const load = startLoad({ bootstrap: broker.bootstrap, http, rate: opts.rate ?? 50, ledger, log })
    log(
      `soak: seed ${opts.seed}, ${opts.seconds} s, a restart about every ${opts.restartEverySeconds} s, broker pid ${broker.pid}, data ${dir.path}`,
    )
    const end = started + opts.seconds * 1000
    let kill = rand() < 0.5
    const nextGap = () => opts.restartEverySeconds * 1000 * (0.8 + 0.4 * rand())
    let nextRestart = started + nextGap()
    let interval = 0
    const progressAt = [PROGRESS.map(([, f]) => f(ledger.counts))]
    while (performance.now() < end) {
      await sleep(sampleEvery)
      if (!broker.alive()) {
        problems.push(`t=${elapsed()}s: the broker exited by itself: ${broker.stderr().slice(-2000)}`)
        break
      }
      const s = await sampleBroker(broker.pid, http, dir.path, elapsed(), interval)
      samples.push(s)
      log(
        `soak: t=${s.t}s interval ${interval} RSS ${mib(s.rssMiB)} MiB heap ${mib(s.heapMiB)} MiB fds ${s.fds} loop p99 ${Math.round(s.loopP99Ms)} ms segments ${s.segments} | ${PROGRESS.map(([n, f]) => `${n} ${f(ledger.counts)}`).join(', ')}`,
      )
      if (performance.now() >= nextRestart && performance.now() + sampleEvery * 3 < end) {
        const kind = kill ? 'kill -9' : 'SIGTERM'
        kill = !kill
        let exitCode: number | null = null
        if (kind === 'SIGTERM') {
          exitCode = await broker.stop()
          if (exitCode !== 0) problems.push(`t=${elapsed()}s: exit code ${exitCode} after SIGTERM: ${broker.stderr().slice(-2000)}`)
        } else await broker.kill9()
        broker = await startBrokerProcess({ dataDir: dir.path, overrides })
        restarts.push({ t: elapsed(), kind, exitCode })
        interval++
        progressAt.push(PROGRESS.map(([, f]) => f(ledger.counts)))
        log(`soak: t=${elapsed()}s restart ${restarts.length} (${kind}), broker pid ${broker.pid}`)
        nextRestart = performance.now() + nextGap()
      }
    }
    progressAt.push(PROGRESS.map(([, f]) => f(ledger.counts)))
    for (let i = 1; i < progressAt.length; i++)
      PROGRESS.forEach(([name], k) => {
        if (progressAt[i]![k]! <= progressAt[i - 1]![k]!) problems.push(`interval ${i - 1}: no ${name}`)
      })

    // The records: producers stop, the logs are read, the consumers get a minute to catch up.
    await load.stopProducers()
    const logs = new Map<string, TopicContents>()
    for (const t of TOPICS) logs.set(t.name, await readTopic(admin, t.name, t.name === 'soak-txn'))
    const catchUp = performance.now() + 60_000
    while (performance.now() < catchUp) {
      for (const [name, c] of logs) c.earliest = await listOffsets(admin, name, null, OffsetSpec.Earliest)
      const left = [...unseenBy(ledger, logs).values()].flatMap((m) => [...m.values()]).reduce((n, xs) => n + xs.length, 0)
      if (left === 0) break
      await sleep(1000)
    }
    await load.stop()
    const records = checkLogs(ledger, logs)
    checkConsumers(ledger, logs, records)
    problems.push(...records.problems, ...judge(samples, limits))
    log(
      `soak: loop-delay p99 over the run ${Math.round(
        percentile(
          samples.map((s) => s.loopP99Ms),
          99,
        ),
      )} ms`,
    )
    return { seed: opts.seed, seconds: elapsed(), restarts, samples, records, counts: ledger.counts, problems }
  } finally {
    admin.close()
    const alive = broker.alive()
    const code = await broker.stop()
    if (alive && code !== 0) problems.push(`exit code ${code} after the final SIGTERM`)
    await broker.cleanup()
    dir.remove()
  }
}
