// One fuzzing run (protocol-fuzz.ts) against a `tributary start` process: cases of one seed, a
// few connections at a time, until a count or a time is reached. Every 50 cases the broker must
// still be alive, serve ApiVersions on a fresh connection, and hold its RSS under the bound; at
// the end every close the fuzzer saw must be counted (logged) by the broker, no request may have
// failed inside a handler (request-failed closes: Kafka answers UNKNOWN_SERVER_ERROR, it does not
// crash a connection on input it could decode), and the broker must stop cleanly.
import { readFileSync } from 'node:fs'
import { type BrokerProcess, startBrokerProcess, stopAndCheck } from '../helpers/broker-process.js'
import { assertServes } from '../helpers/clients.js'
import {
  describeCase,
  type Finding,
  FUZZED_APIS,
  type FuzzReport,
  type Outcome,
  protocolCloses,
  runCase,
  sampleCases,
} from './protocol-fuzz.js'

export interface FuzzRunOptions {
  seed: number
  /** Stop after this many cases… */
  cases?: number
  /** …or after this many seconds, whichever comes first. */
  seconds?: number
  /** Connections at once. Default 4. */
  concurrency?: number
  /** How long a case waits for an answer. Default 1500 ms. */
  waitMs?: number
  /** RSS bound of the broker, MiB. Default 512. */
  maxRssMiB?: number
  log?: (line: string) => void
}

export interface FuzzRunReport extends FuzzReport {
  /** What became of the valid requests alone. */
  validOutcomes: Record<Outcome, number>
  seconds: number
  brokerRssMiB: { start: number; max: number; end: number }
  protocolClosesCounted: number
  requestFailedCloses: number
}

const BATCH = 50

/** A case that has not ended well past its wait is a finding of its own (a connect or close that hangs). */
async function withDeadline<T>(p: Promise<T>, ms: number): Promise<T | { problem: string }> {
  let timer: NodeJS.Timeout | undefined
  const late = new Promise<{ problem: string }>((resolve) => {
    timer = setTimeout(() => resolve({ problem: `the case did not end within ${ms} ms` }), ms)
  })
  try {
    return await Promise.race([p, late])
  } finally {
    clearTimeout(timer)
  }
}

function rssMiB(pid: number): number {
  const m = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))
  return m ? Math.round(Number(m[1]) / 1024) : Number.NaN
}

async function closesOfKind(httpBase: string, kind: string): Promise<number> {
  const text = await (await fetch(`${httpBase}/metrics`)).text()
  let n = 0
  for (const line of text.split('\n'))
    if (line.startsWith('tributary_network_protocol_closes_total{') && line.includes(`kind="${kind}"`))
      n += Number(line.slice(line.lastIndexOf(' ') + 1))
  return n
}

export async function fuzzRun(opts: FuzzRunOptions): Promise<FuzzRunReport> {
  const log = opts.log ?? (() => {})
  const limit = opts.cases ?? Number.POSITIVE_INFINITY
  const deadline = performance.now() + (opts.seconds ?? Number.POSITIVE_INFINITY) * 1000
  const waitMs = opts.waitMs ?? 1500
  const maxRss = opts.maxRssMiB ?? 512
  const broker: BrokerProcess = await startBrokerProcess({
    overrides: { 'socket.request.max.bytes': String(8 * 1024 * 1024), 'num.partitions': '1', 'group.initial.rebalance.delay.ms': '0' },
  })
  const started = performance.now()
  const findings: Finding[] = []
  const outcomes: Record<Outcome, number> = { answered: 0, closed: 0, silent: 0 }
  const byKind = { valid: 0, mutated: 0, 'random-frame': 0, 'bad-size': 0, bomb: 0 }
  const validOutcomes: Record<Outcome, number> = { answered: 0, closed: 0, silent: 0 }
  const rss = { start: rssMiB(broker.pid), max: 0, end: 0 }
  let done = 0
  let round = 0
  try {
    while (done < limit && performance.now() < deadline && findings.length < 20) {
      // A new sample per round of the same seed: round r takes cases [r*BATCH, (r+1)*BATCH) of it.
      const cases = sampleCases(opts.seed + round * 7919, Math.min(BATCH, limit - done))
      round++
      let next = 0
      const worker = async () => {
        while (next < cases.length) {
          const c = cases[next++]!
          const r = await withDeadline(runCase(broker.host, broker.port, c, waitMs), waitMs + 15_000)
          byKind[c.kind]++
          if ('problem' in r) findings.push({ case: describeCase(c), problem: r.problem })
          else {
            outcomes[r.outcome]++
            if (c.kind === 'valid') validOutcomes[r.outcome]++
          }
        }
      }
      await Promise.all(Array.from({ length: opts.concurrency ?? 4 }, worker))
      done += cases.length
      if (!broker.alive()) {
        findings.push({ case: describeCase(cases.at(-1)!), problem: `the broker exited: ${broker.stderr().slice(-2000)}` })
        break
      }
      try {
        await assertServes(broker.host, broker.port)
      } catch (err) {
        findings.push({ case: describeCase(cases.at(-1)!), problem: `a fresh connection is not served: ${(err as Error).message}` })
        break
      }
      const now = rssMiB(broker.pid)
      rss.max = Math.max(rss.max, now)
      if (now > maxRss) findings.push({ case: describeCase(cases.at(-1)!), problem: `broker RSS ${now} MiB is past ${maxRss} MiB` })
      if (round % 10 === 0) log(`fuzz: ${done} cases, ${JSON.stringify(outcomes)}, RSS ${now} MiB`)
    }
    // Let the broker finish closing what the fuzzer hung up on before counting.
    await new Promise((r) => setTimeout(r, 500))
    const counted = await protocolCloses(broker.http!)
    const requestFailed = await closesOfKind(broker.http!, 'request-failed')
    if (counted < outcomes.closed)
      findings.push({
        case: { kind: 'valid', apiKey: -1, version: -1, correlationId: -1, hex: '' },
        problem: `${outcomes.closed} closes seen, ${counted} counted by the broker: some close was not logged`,
      })
    if (requestFailed > 0) {
      const failures = broker
        .stderr()
        .split('\n')
        .filter((l) => l.includes('failed'))
        .slice(0, 5)
      findings.push({
        case: { kind: 'valid', apiKey: -1, version: -1, correlationId: -1, hex: '' },
        problem: `${requestFailed} requests failed inside a handler (closed instead of answered): ${failures.join(' | ')}`,
      })
    }
    rss.end = rssMiB(broker.pid)
    return {
      seed: opts.seed,
      cases: done,
      outcomes,
      validOutcomes,
      byKind,
      apis: FUZZED_APIS,
      findings,
      seconds: Math.round((performance.now() - started) / 1000),
      brokerRssMiB: rss,
      protocolClosesCounted: counted,
      requestFailedCloses: requestFailed,
    }
  } finally {
    await stopAndCheck(broker)
  }
}
