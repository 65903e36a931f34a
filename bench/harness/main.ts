// `npm run bench`: Tributary beside Apache Kafka 4.x on the same machine, with the same load
// generators, alternating runs, median of N. See docs/benchmarks.md.
//
//   npm run bench                              full run (3 runs per scenario, ~30 min on 2 cores)
//   npm run bench -- --quick                   small counts, 1 run per scenario (< 2 min; without
//                                              the 1,000-partition and size scenarios unless named)
//   npm run bench -- --scenario produce-100b-acks1 --scenario startup
//   npm run bench -- --no-kafka                Tributary only
//   npm run bench -- --no-tributary            Apache Kafka only (e.g. a scenario Tributary cannot run yet)
//   npm run bench -- --runs 5 --docs           5 runs, and update docs/benchmarks.md
import { execFileSync } from 'node:child_process'
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join, resolve } from 'node:path'
import {
  type BenchCerts,
  type Broker,
  type BrokerName,
  type JavaEnv,
  makeCerts,
  prepareKafka,
  settle,
  startKafka,
  startTributary,
  TRIBUTARY_MAIN,
} from './brokers.js'
import { createTopics, tributaryPerfAvailable } from './generators.js'
import { describeMachine } from './machine.js'
import { rdkafkaAvailable } from './rdkafka.js'
import {
  type BenchReport,
  DOC,
  markdownTable,
  medians,
  RESULTS_MARKERS,
  readResults,
  type ScenarioResult,
  terminalTable,
  updateDocs,
  writeChart,
  writeResults,
} from './report.js'
import { COUNTS, type Counts, type RunContext, type Scenario, SCENARIO_NAMES, STARTUP, scenarios } from './scenarios.js'
import { runSizePhase, sizeScenarios } from './size.js'
import { createTopicAndWait, deleteTopic } from './topics.js'
import { cpuSecondsOf, fmtNum, memOf, ROOT, sleep, watchMemory } from './util.js'

interface Options {
  quick: boolean
  scenarios: string[]
  noKafka: boolean
  noTributary: boolean
  runs?: number
  docs?: boolean
  keep: boolean
  render?: string
  /** --size-mib SMALL,LARGE: other sizes for the size scenarios. */
  sizeMiB?: [number, number]
  /** --out DIR: where the results and the chart go instead of bench/results (docs are then left alone). */
  out?: string
}

const USAGE = `usage: npm run bench [-- --quick] [--scenario NAME ...] [--no-kafka | --no-tributary] [--runs N] [--docs | --no-docs] [--keep]

  --quick         small counts, one run per scenario (whole run < 2 minutes); the 1,000-partition
                  and size scenarios run in quick mode only when named with --scenario
  --scenario N    run only these scenarios (repeatable or comma-separated)
  --no-kafka      measure Tributary only
  --no-tributary  measure Apache Kafka only
  --runs N        runs per scenario (default 3, quick 1); the median is reported
  --docs          update docs/benchmarks.md (default: only after a full run of every scenario with Kafka)
  --no-docs       never update docs/benchmarks.md
  --size-mib S,L  the size scenarios' small and large partitions in MiB (default 1024,10240; quick 50,500)
  --keep          keep the brokers' temporary directories (logs, data; the size scenarios' data is deleted regardless)
  --out DIR       write the results and the chart to DIR instead of bench/results (docs/benchmarks.md is not updated)
  --render DATE   run nothing: rebuild the chart and docs/benchmarks.md from bench/results/DATE-*.json

scenarios: ${ALL_NAMES(COUNTS.full).join(', ')}`

/** Every scenario, in table order: start-up, the load scenarios, the size scenarios (size.ts). */
function ALL_NAMES(c: Counts): string[] {
  return [...SCENARIO_NAMES(c), ...sizeScenarios(c).map((s) => s.name)]
}

function parseArgs(argv: string[]): Options {
  const o: Options = { quick: false, scenarios: [], noKafka: false, noTributary: false, keep: false }
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i]!
    const value = () => {
      const v = a.includes('=') ? a.slice(a.indexOf('=') + 1) : argv[++i]
      if (v === undefined) usage(`${a} needs a value`)
      return v!
    }
    if (a === '--') continue
    else if (a === '--quick') o.quick = true
    else if (a === '--no-kafka') o.noKafka = true
    else if (a === '--no-tributary') o.noTributary = true
    else if (a === '--docs') o.docs = true
    else if (a === '--no-docs') o.docs = false
    else if (a === '--keep') o.keep = true
    else if (a === '--render' || a.startsWith('--render=')) o.render = value()
    else if (a === '--out' || a.startsWith('--out=')) o.out = resolve(value())
    else if (a === '--scenario' || a.startsWith('--scenario=')) o.scenarios.push(...value().split(',').filter(Boolean))
    else if (a === '--size-mib' || a.startsWith('--size-mib=')) {
      const [small, large, ...rest] = value().split(',').map(Number)
      if (rest.length > 0 || !Number.isInteger(small) || !Number.isInteger(large) || small! < 1 || large! <= small!)
        usage('--size-mib needs SMALL,LARGE in MiB, SMALL < LARGE')
      o.sizeMiB = [small!, large!]
    } else if (a === '--runs' || a.startsWith('--runs=')) {
      o.runs = Number(value())
      if (!Number.isInteger(o.runs) || o.runs < 1) usage('--runs needs a positive integer')
    } else if (a === '--help' || a === '-h') {
      console.log(USAGE)
      process.exit(0)
    } else usage(`unknown argument ${a}`)
  }
  if (o.noKafka && o.noTributary) usage('--no-kafka and --no-tributary leave nothing to measure')
  const known = ALL_NAMES(COUNTS.full)
  for (const s of o.scenarios) if (!known.includes(s)) usage(`unknown scenario ${s}`)
  return o
}

function usage(msg: string): never {
  console.error(`${msg}\n\n${USAGE}`)
  process.exit(2)
}

const say = (s: string) => console.log(s)
const secs = (ms: number) => `${(ms / 1000).toFixed(1)} s`

function gitCommit(): string | null {
  try {
    const sha = execFileSync('git', ['rev-parse', '--short', 'HEAD'], { cwd: ROOT, stdio: ['ignore', 'pipe', 'ignore'] })
      .toString()
      .trim()
    const dirty = execFileSync('git', ['status', '--porcelain', '--untracked-files=no'], { cwd: ROOT, stdio: ['ignore', 'pipe', 'ignore'] })
      .toString()
      .trim()
    return dirty ? `${sha} (with uncommitted changes)` : sha
  } catch {
    return null
  }
}

function emptyResult(
  s: { name: string; title: string; metrics: Scenario['metrics'] },
  generator: string,
  params: Record<string, unknown>,
): ScenarioResult {
  return {
    name: s.name,
    title: s.title,
    generator,
    params,
    metrics: s.metrics,
    runs: { tributary: [], kafka: [] },
    errors: { tributary: [], kafka: [] },
    median: { tributary: {}, kafka: {} },
    notes: [],
  }
}

function summary(metrics: Record<string, number>): string {
  const parts: string[] = []
  const f = (k: string, label: string, unit: string) => {
    if (metrics[k] !== undefined && Number.isFinite(metrics[k])) parts.push(`${label}${fmtNum(metrics[k]!)}${unit}`)
  }
  f('records_per_sec', '', ' records/s')
  f('vs_8p_pct', '', ' % of 8 partitions')
  f('mb_per_sec', '', ' MB/s')
  f('startup_ms', 'start-up ', ' ms')
  f('first_record_ms', 'first record ', ' ms')
  f('all_first_record_ms', 'every member ', ' ms')
  f('avg_ms', 'avg ', ' ms')
  f('p50_ms', 'p50 ', ' ms')
  f('p99_ms', 'p99 ', ' ms')
  f('p999_ms', 'p99.9 ', ' ms')
  f('broker_cpu_s', 'broker CPU ', ' s')
  f('broker_cpu_s_per_m', 'broker CPU per M records ', ' s')
  f('peak_rss_mb', 'peak RSS ', ' MiB')
  f('idle_rss_mb', 'RSS ', ' MiB')
  return parts.join(', ')
}

/**
 * Fills in the metrics one scenario takes from another's run in the same round on the same broker
 * (1,000 partitions as a % of 8); a run whose partner failed gets none.
 */
function deriveRelative(
  active: Scenario[],
  brokers: BrokerName[],
  runs: number,
  byRound: Map<string, Record<string, number>>,
  roundKey: (scenario: string, b: BrokerName, round: number) => string,
  say: (s: string) => void,
): void {
  for (const s of active) {
    const rel = s.relativeTo
    if (!rel) continue
    for (const b of brokers) {
      const shares: string[] = []
      for (let round = 1; round <= runs; round++) {
        const m = byRound.get(roundKey(s.name, b, round))
        const base = byRound.get(roundKey(rel.scenario, b, round))
        const x = m?.[rel.of]
        const y = base?.[rel.of]
        if (!m || x === undefined || y === undefined || !Number.isFinite(x) || !Number.isFinite(y) || y <= 0) continue
        m[rel.key] = Math.round((1000 * x) / y) / 10
        shares.push(`${fmtNum(m[rel.key]!)} %`)
      }
      if (shares.length > 0) say(`${s.name} on ${b}: ${rel.of} as % of ${rel.scenario} in the same round: ${shares.join(', ')}`)
    }
  }
}

/** One line per metric with a target: each broker's median and whether it meets the target. */
function targetNotes(results: ScenarioResult[]): string[] {
  const out: string[] = []
  for (const r of results) {
    for (const m of r.metrics) {
      if (!m.target) continue
      const parts: string[] = []
      for (const b of ['tributary', 'kafka'] as const) {
        const v = r.median[b][m.key]
        if (v === undefined || !Number.isFinite(v)) continue
        const met = m.target.op === '>=' ? v >= m.target.value : v <= m.target.value
        parts.push(`${b === 'tributary' ? 'Tributary' : 'Kafka'} ${fmtNum(v)} ${m.unit} (${met ? 'met' : 'NOT met'})`)
      }
      if (parts.length === 0) continue
      const line = `target ${m.label} ${m.target.op === '>=' ? '≥' : '≤'} ${m.target.value} ${m.unit}: ${parts.join(', ')}`
      r.notes.push(line)
      out.push(`${r.name}: ${line}`)
    }
  }
  return out
}

const DOC_TEMPLATE = `# Benchmarks\n\nGenerated by \`npm run bench\`; see bench/harness/.\n\n## Results\n\n${RESULTS_MARKERS.START}\n${RESULTS_MARKERS.END}\n`

async function main(): Promise<number> {
  const opts = parseArgs(process.argv.slice(2))
  if (opts.render) {
    const report = readResults(opts.render, ALL_NAMES(COUNTS.full))
    const { chart } = writeChart(report)
    if (opts.docs !== false) updateDocs(report, DOC_TEMPLATE, chart)
    say(
      `${terminalTable(report)}\n\nrebuilt ${chart.slice(ROOT.length)}${opts.docs !== false ? ` and ${DOC.slice(ROOT.length)}` : ''} from bench/results/${opts.render}-*.json`,
    )
    return 0
  }
  const started = new Date()
  const t0 = performance.now()
  // The commit that was built and is measured (files edited during a long run do not change it).
  const commit = gitCommit()
  const base: Counts = opts.quick ? COUNTS.quick : COUNTS.full
  const counts: Counts = {
    ...base,
    ...(opts.runs ? { runs: opts.runs, startupRuns: opts.runs } : {}),
    ...(opts.sizeMiB ? { sizeSmallMiB: opts.sizeMiB[0], sizeLargeMiB: opts.sizeMiB[1] } : {}),
  }
  // A scenario measured against another (1,000 partitions against 8) brings that one along.
  const selected = new Set(opts.scenarios)
  for (const s of scenarios(counts)) {
    if (s.relativeTo && selected.has(s.name) && !selected.has(s.relativeTo.scenario)) {
      selected.add(s.relativeTo.scenario)
      say(`(${s.name} is reported against ${s.relativeTo.scenario}, so that runs too)`)
    }
  }
  const want = (name: string) => selected.size === 0 || selected.has(name)
  // The many-partition and size scenarios would take a plain --quick past 2 minutes.
  const fullOnly = (s: { name: string; fullOnly?: boolean }) =>
    counts.mode === 'quick' && s.fullOnly && !selected.has(s.name)
      ? 'full runs only (it would take --quick past 2 minutes); name it with --scenario to run it with quick counts'
      : null

  if (!existsSync(TRIBUTARY_MAIN)) {
    console.error('dist/bin/tributary.js is missing: run `npm run build` first (npm run bench does).')
    return 1
  }
  say(
    `Tributary benchmark, ${counts.mode} mode (${counts.runs} run${counts.runs === 1 ? '' : 's'} per scenario${counts.runs < 3 ? '; fewer than 3, so a single run rather than a median' : ', median reported'})`,
  )
  const machine = await describeMachine()
  say(`machine: ${machine.cores} cores (${machine.cpuModel}), ${machine.memoryGiB} GiB, Node ${machine.node}, ${machine.java ?? 'no Java'}`)

  // The Kafka side and the Java load generators.
  let tools: JavaEnv | null = null
  let kafkaSkip: string | null = null
  const prepared = await prepareKafka(machine.java, machine.maven, say)
  if ('skip' in prepared) kafkaSkip = prepared.skip
  else tools = prepared
  if (opts.noKafka) kafkaSkip = `--no-kafka was given${kafkaSkip ? ` (and besides: ${kafkaSkip})` : ''}`
  if (kafkaSkip) say(`\n*** The Apache Kafka side is SKIPPED: ${kafkaSkip}. Measuring Tributary only. ***\n`)
  else say(`Apache Kafka ${tools!.kafkaVersion} from bench/kafka/target/lib (heap ${tools!.brokerArgs.slice(0, 2).join(' ')})`)
  const perf = await tributaryPerfAvailable()
  if (!perf.available) say(`tributary perf load generator: not used (${perf.reason})`)
  const rdkafka = await rdkafkaAvailable()
  say(
    rdkafka.available
      ? `rdkafka_performance: librdkafka ${rdkafka.version}`
      : `rdkafka_performance load generator: not used (${rdkafka.reason})`,
  )

  if (opts.noTributary && kafkaSkip) {
    console.error(`--no-tributary was given, but the Kafka side cannot run: ${kafkaSkip}`)
    return 1
  }
  if (opts.noTributary) say('\n*** --no-tributary: measuring Apache Kafka only. ***\n')
  const brokers: BrokerName[] = kafkaSkip ? ['tributary'] : opts.noTributary ? ['kafka'] : ['tributary', 'kafka']
  const tmp = mkdtempSync(join(tmpdir(), 'tributary-bench-'))
  const start = (b: BrokerName, dir: string, certs?: BenchCerts): Promise<Broker> =>
    b === 'tributary' ? startTributary(dir, { certs }) : startKafka(tools!, dir, { certs })
  const results: ScenarioResult[] = []
  let failures = 0
  /** Each load run's metrics by scenario, broker and round, for the metrics derived across scenarios. */
  const byRound = new Map<string, Record<string, number>>()
  const roundKey = (scenario: string, b: BrokerName, round: number) => `${scenario}|${b}|${round}`

  try {
    // Which load scenarios can run.
    const all = scenarios(counts).filter((s) => want(s.name))
    const active: Scenario[] = []
    const loadResults: ScenarioResult[] = []
    for (const s of all) {
      const generator = s.needs === 'rdkafka' && rdkafka.version ? `${s.generator} (librdkafka ${rdkafka.version})` : s.generator
      const r = emptyResult(s, generator, s.params)
      if (fullOnly(s)) r.skipped = fullOnly(s)!
      else if (s.needs === 'java' && !tools) r.skipped = `needs Java and Kafka's tools (${kafkaSkip})`
      else if (s.needs === 'perf' && !perf.available) r.skipped = `tributary perf is not available (${perf.reason})`
      else if (s.needs === 'rdkafka' && !rdkafka.available) r.skipped = rdkafka.reason!
      else active.push(s)
      loadResults.push(r)
    }
    const resultOf = (s: Scenario) => loadResults.find((r) => r.name === s.name)!
    const sizeResults: ScenarioResult[] = []
    for (const s of sizeScenarios(counts).filter((x) => want(x.name))) {
      const r = emptyResult(s, s.generator, s.params)
      if (fullOnly(s)) r.skipped = fullOnly(s)!
      else if (!perf.available) r.skipped = `the partitions are filled with tributary perf, which is not available (${perf.reason})`
      sizeResults.push(r)
    }

    // 1. Start-up, each start on an empty directory, alternating brokers. The brokers started for
    //    the load scenarios (also on empty directories) give one of the samples — unless TLS
    //    scenarios give them an SSL listener, which plain start-ups do not have.
    const tlsNeeded = active.some((s) => s.tls)
    const loadStartIsSample = active.length > 0 && !tlsNeeded
    const startup = want(STARTUP.name)
      ? emptyResult(STARTUP, 'the harness (raw socket, ApiVersions v0 every 1 ms)', { runs: counts.startupRuns, emptyDataDir: true })
      : null
    if (startup) results.push(startup)
    const recordStart = async (b: BrokerName, broker: Broker) => {
      if (!startup) return
      await sleep(1000)
      const m: Record<string, number> = { startup_ms: broker.startupMs, idle_rss_mb: memOf(broker.pid).hwm }
      if (broker.formatMs !== undefined) m.format_ms = broker.formatMs
      startup.runs[b].push(m)
      say(
        `  ${b.padEnd(9)} ${summary(m)}${broker.formatMs !== undefined ? ` (storage format before it: ${fmtNum(broker.formatMs)} ms, not counted)` : ''}`,
      )
    }
    if (startup) {
      say(`\n== ${STARTUP.name}: ${STARTUP.title}`)
      const extra = loadStartIsSample ? counts.startupRuns - 1 : counts.startupRuns
      for (let i = 0; i < extra; i++) {
        const order = i % 2 === 1 ? brokers : [...brokers].reverse()
        for (const b of order) {
          const dir = join(tmp, `startup-${b}-${i}`)
          try {
            const broker = await start(b, dir)
            await recordStart(b, broker)
            await broker.stop()
          } catch (err) {
            failures++
            startup.errors[b].push((err as Error).message)
            say(`  ${b.padEnd(9)} FAILED: ${(err as Error).message}`)
          }
          if (!opts.keep) rmSync(dir, { recursive: true, force: true })
          await settle()
        }
      }
      if (brokers.includes('kafka'))
        startup.notes.push('Kafka: the StorageTool format that a fresh directory needs first is not counted (format_ms in the JSON)')
    }
    results.push(...loadResults, ...sizeResults)

    // 2. Load scenarios on one long-lived broker of each kind.
    if (active.length > 0) {
      const live: Partial<Record<BrokerName, Broker>> = {}
      const certs = tlsNeeded ? await makeCerts(tmp) : undefined
      say(
        `\n== starting the brokers for the load scenarios${loadStartIsSample && startup ? ' (each start is a start-up sample too)' : ''}${certs ? ', with an SSL listener each' : ''}`,
      )
      for (const b of brokers) {
        try {
          live[b] = await start(b, join(tmp, `main-${b}`), certs)
          if (startup && loadStartIsSample) await recordStart(b, live[b]!)
          else say(`  ${b.padEnd(9)} ${live[b]!.bootstrap}, up in ${fmtNum(live[b]!.startupMs)} ms`)
        } catch (err) {
          failures++
          startup?.errors[b].push((err as Error).message)
          say(`  ${b.padEnd(9)} FAILED to start: ${(err as Error).message}`)
        }
      }
      const ctxFor = (b: BrokerName, round: number): RunContext => ({ tools, broker: live[b]!, round })

      // Topics for every run, created up front (Kafka's Admin client), and the consume data: set-up
      // is untimed, so both brokers are prepared at once.
      await Promise.all(
        brokers.map(async (b) => {
          if (!live[b]) return
          const byPartitions = new Map<number, Set<string>>()
          for (const s of active) {
            if (s.topicPerRun) continue
            for (let round = 1; round <= counts.runs; round++)
              byPartitions.set(s.partitions, (byPartitions.get(s.partitions) ?? new Set()).add(s.topic(round)))
          }
          const t = performance.now()
          try {
            if (tools) await Promise.all([...byPartitions].map(([p, names]) => createTopics(tools!, live[b]!.bootstrap, p, [...names])))
            if (tools) say(`  ${b.padEnd(9)} topics created in ${secs(performance.now() - t)}`)
            const filled = new Set<string>()
            for (const s of active) {
              if (!s.prepare || filled.has(s.topic(1))) continue
              filled.add(s.topic(1))
              const note = await s.prepare(ctxFor(b, 0))
              say(`  ${b.padEnd(9)} ${note}`)
              for (const o of active)
                if (o.prepare && o.topic(1) === s.topic(1)) resultOf(o).notes.push(`${b}: ${note} (untimed set-up, both brokers at once)`)
            }
          } catch (err) {
            failures++
            say(`  ${b.padEnd(9)} set-up FAILED: ${(err as Error).message}`)
            for (const s of active) resultOf(s).errors[b].push(`set-up failed: ${(err as Error).message}`)
            await live[b]!.stop()
            delete live[b]
          }
        }),
      )

      for (let round = 1; round <= counts.runs; round++) {
        for (let si = 0; si < active.length; si++) {
          const s = active[si]!
          const r = resultOf(s)
          if (round === 1) say(`\n== ${s.name}: ${s.title} [${s.generator}]`)
          const order = (round + si) % 2 === 1 ? brokers : [...brokers].reverse()
          for (const b of order) {
            const broker = live[b]
            if (!broker) continue
            if (!broker.alive()) {
              failures++
              r.errors[b].push(`the broker process has exited:\n${broker.logTail()}`)
              say(`  run ${round}/${counts.runs} ${b.padEnd(9)} FAILED: the broker has exited\n${broker.logTail(10)}`)
              continue
            }
            if (s.topicPerRun) {
              const t = performance.now()
              try {
                await createTopicAndWait(broker.bootstrap, s.topic(round), s.partitions)
                say(
                  `  run ${round}/${counts.runs} ${b.padEnd(9)} topic ${s.topic(round)} (${s.partitions} partitions) created in ${secs(performance.now() - t)}, untimed`,
                )
              } catch (err) {
                failures++
                r.errors[b].push(`creating the topic: ${(err as Error).message}`)
                say(`  run ${round}/${counts.runs} ${b.padEnd(9)} FAILED to create its topic: ${(err as Error).message}`)
                continue
              }
            }
            const w = watchMemory(broker.pid)
            const cpu0 = cpuSecondsOf(broker.pid)
            const t = performance.now()
            try {
              const m = await s.run(ctxFor(b, round))
              m.broker_cpu_s = cpuSecondsOf(broker.pid) - cpu0
              if (s.recordsPerRun) m.broker_cpu_s_per_m = (m.broker_cpu_s / s.recordsPerRun) * 1e6
              if (s.recordsPerRun && s.recordBytes) m.broker_cpu_s_per_gb = (m.broker_cpu_s / (s.recordsPerRun * s.recordBytes)) * 1e9
              m.peak_rss_mb = w.stop()
              r.runs[b].push(m)
              byRound.set(roundKey(s.name, b, round), m)
              say(`  run ${round}/${counts.runs} ${b.padEnd(9)} ${summary(m)} (${secs(performance.now() - t)})`)
            } catch (err) {
              w.stop()
              failures++
              r.errors[b].push((err as Error).message)
              say(`  run ${round}/${counts.runs} ${b.padEnd(9)} FAILED (${secs(performance.now() - t)}): ${(err as Error).message}`)
            }
            if (s.topicPerRun) {
              const problem = await deleteTopic(broker.bootstrap, s.topic(round))
              if (problem) say(`  run ${round}/${counts.runs} ${b.padEnd(9)} (${problem})`)
            }
            await settle()
          }
        }
      }
      for (const b of brokers) await live[b]?.stop()
      deriveRelative(active, brokers, counts.runs, byRound, roundKey, say)
    }

    // 3. The size scenarios: one fresh broker at a time, filled with gigabytes, then deleted.
    const sizeActive = sizeResults.filter((r) => !r.skipped)
    if (sizeActive.length > 0) {
      failures += await runSizePhase({ brokers, start, dir: tmp, counts, results: sizeActive, say })
    }
  } finally {
    if (!opts.keep) rmSync(tmp, { recursive: true, force: true })
    else say(`\nbroker directories and logs kept in ${tmp}`)
  }

  for (const r of results) for (const b of ['tributary', 'kafka'] as const) r.median[b] = medians(r.runs[b])
  const targets = targetNotes(results)

  const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { version: string }
  const report: BenchReport = {
    date: started.toISOString().slice(0, 10),
    startedAt: started.toISOString(),
    finishedAt: new Date().toISOString(),
    durationSec: Math.round((performance.now() - t0) / 100) / 10,
    mode: counts.mode,
    runsPerScenario: counts.runs,
    command: `npm run bench${process.argv.length > 2 ? ` -- ${process.argv.slice(2).join(' ')}` : ''}`,
    machine,
    tributary: {
      version: pkg.version,
      commit,
      command:
        'node dist/bin/tributary.js start --override listeners=… --override log.dirs=… --override group.initial.rebalance.delay.ms=0',
    },
    kafka: {
      version: tools?.kafkaVersion ?? null,
      skipped: kafkaSkip,
      brokerJvm: kafkaSkip ? null : tools!.brokerArgs.filter((a) => !a.startsWith('-Dlog4j2')),
      command: kafkaSkip
        ? null
        : 'java <jvm> -cp bench/kafka/target/lib/* kafka.Kafka server.properties (after kafka.tools.StorageTool format --standalone)',
    },
    loadGenerators: {
      kafkaTools: tools
        ? `org.apache.kafka:kafka-tools:${tools.kafkaVersion} (${tools.toolArgs.filter((a) => !a.startsWith('-Dlog4j2')).join(' ')})`
        : null,
      tributaryPerf: perf.available ? 'tributary perf' : `not used: ${perf.reason}`,
    },
    scenarios: results,
  }

  say(`\n${terminalTable(report)}\n`)
  if (targets.length > 0) say(`Targets, on each broker's median:\n${targets.map((t) => `  ${t}`).join('\n')}\n`)
  if (kafkaSkip) say(`The Apache Kafka side was skipped: ${kafkaSkip}.`)
  if (counts.runs < 3)
    say(
      `Each number is from ${counts.runs === 1 ? 'a single run' : `the median of ${counts.runs} runs`} (quick mode); a full run takes the median of 3.`,
    )
  const { files, chart } = writeResults(report, opts.out)
  say(
    `results: ${files.length} files in ${opts.out ?? 'bench/results/'} (${files.map((f) => f.split('/').pop()).join(', ')}), chart ${chart.split('/').pop()}`,
  )
  const updateDoc =
    opts.out === undefined && (opts.docs ?? (counts.mode === 'full' && opts.scenarios.length === 0 && !kafkaSkip && !opts.noTributary))
  if (updateDoc) {
    updateDocs(report, DOC_TEMPLATE, chart)
    say(`updated ${DOC.slice(ROOT.length)}`)
  } else if (opts.out !== undefined) {
    say('docs/benchmarks.md not updated (--out was given)')
  } else {
    say('docs/benchmarks.md not updated (it shows full runs beside Kafka; pass --docs to update it anyway)')
  }
  say(`whole run: ${secs(performance.now() - t0)}`)
  if (failures > 0) say(`${failures} run(s) failed; see above.`)
  // Keep the Markdown table handy for copy/paste in CI logs.
  if (process.env.BENCH_MARKDOWN) say(`\n${markdownTable(report)}`)
  return failures > 0 ? 1 : 0
}

main().then(
  (code) => process.exit(code),
  (err: unknown) => {
    console.error(err instanceof Error ? (err.stack ?? err.message) : String(err))
    process.exit(1)
  },
)
