// npm run soak -- [--minutes N] [--seconds N] [--restart-every SECONDS] [--sample-every SECONDS]
// [--rate RECORDS_PER_S] [--seed N] [--json]: one soak run (soak-run.ts). Prints the seed first,
// a progress line per sample, then the samples table and the report; exits 1 when any check failed.
import { soakRun } from './soak-run.js'
import { percentile, type Sample } from './soak-sample.js'

const args = process.argv.slice(2)
const opt = (name: string) => {
  const i = args.indexOf(`--${name}`)
  return i >= 0 ? args[i + 1] : undefined
}
const num = (name: string, fallback: number) => {
  const v = opt(name)
  if (v === undefined) return fallback
  const n = Number(v)
  if (!Number.isFinite(n) || n <= 0) {
    console.error(`soak: --${name} must be a positive number, got ${v}`)
    process.exit(2)
  }
  return n
}
const seed = num('seed', Math.floor(Math.random() * 2 ** 31))
const seconds = opt('seconds') !== undefined ? num('seconds', 60) : num('minutes', 30) * 60
console.error(`soak: seed ${seed}`)
const keepAlive = setInterval(() => {}, 1000)
const report = await soakRun({
  seed,
  seconds,
  restartEverySeconds: num('restart-every', 180),
  sampleEverySeconds: num('sample-every', 5),
  rate: num('rate', 50),
  log: (l) => console.error(l),
})
clearInterval(keepAlive)

/** Start, middle and end of the run: the first, middle and last sample, and the run's loop-delay p99. */
function table(samples: readonly Sample[]): string {
  const rows = [samples[0], samples[samples.length >> 1], samples.at(-1)]
  const line = (label: string, s: Sample | undefined) =>
    s
      ? `| ${label} | ${s.t} | ${s.interval} | ${s.rssMiB.toFixed(0)} | ${s.heapMiB.toFixed(0)} | ${s.fds} | ${s.loopP99Ms.toFixed(0)} | ${s.segments} |`
      : `| ${label} | – | | | | | | |`
  return [
    '| sample | t (s) | interval | RSS (MiB) | heap (MiB) | fds | loop p99 (ms) | segments |',
    '|---|---|---|---|---|---|---|---|',
    line('start', rows[0]),
    line('mid', rows[1]),
    line('end', rows[2]),
    `\nloop-delay p99 of all samples: ${percentile(
      samples.map((s) => s.loopP99Ms),
      99,
    ).toFixed(
      0,
    )} ms; max RSS ${Math.max(...samples.map((s) => s.rssMiB)).toFixed(0)} MiB; max fds ${Math.max(...samples.map((s) => s.fds))}`,
  ].join('\n')
}

if (args.includes('--json')) console.log(JSON.stringify(report))
else {
  console.log(table(report.samples))
  console.log(
    `restarts: ${report.restarts.map((r) => `${r.t}s ${r.kind}${r.exitCode === null ? '' : ` (exit ${r.exitCode})`}`).join(', ')}`,
  )
  console.log('records:', JSON.stringify(report.records.checked), 'lost in log:', JSON.stringify(report.records.lostInLog))
  console.log('unseen by consumers:', JSON.stringify(report.records.unseen))
  console.log('counts:', JSON.stringify(report.counts))
  console.log(
    report.problems.length === 0 ? 'soak: no problem' : `soak: ${report.problems.length} problems:\n  ${report.problems.join('\n  ')}`,
  )
}
process.exit(report.problems.length === 0 ? 0 : 1)
