// npm run chaos -- [--seconds N] [--seed N] [--nemesis kill,pause,partition|all|none]
//                  [--partitions N] [--no-transactions] [--history FILE] [--json]
// One chaos run (chaos-run.ts): prints the seed first, progress every few seconds, each fault as
// it starts and ends, and the summary (operations, faults, anomalies per class with the operations
// that show them). --history writes the whole history as JSON (checker.ts can read it again).
// Exits 1 on any anomaly.
import { writeFileSync } from 'node:fs'
import { chaosRun, summary } from './chaos-run.js'
import { parseNemeses } from './nemesis.js'

const args = process.argv.slice(2)
const opt = (name: string) => {
  const i = args.indexOf(`--${name}`)
  return i >= 0 ? args[i + 1] : undefined
}
const seed = Number(opt('seed') ?? Math.floor(Math.random() * 2 ** 31))
const seconds = Number(opt('seconds') ?? 60)
const partitions = Number(opt('partitions') ?? 3)
const nemeses = parseNemeses(opt('nemesis') ?? 'all')
if (!Number.isInteger(seed) || !(seconds > 0) || !Number.isInteger(partitions) || partitions < 1) {
  console.error(
    'usage: npm run chaos -- [--seconds N] [--seed N] [--nemesis kill,pause,partition|all|none] [--partitions N] [--no-transactions] [--history FILE] [--json]',
  )
  process.exit(2)
}
console.error(`chaos: seed ${seed}`)
// The run's own sockets and timers come and go; this keeps the process up until the report is out.
const keepAlive = setInterval(() => {}, 1000)
const report = await chaosRun({
  seed,
  seconds,
  nemeses,
  partitions,
  transactions: !args.includes('--no-transactions'),
  log: (l) => console.error(l),
})
const file = opt('history')
if (file) writeFileSync(file, JSON.stringify(report.history))
const { history: _history, ...rest } = report
if (args.includes('--json')) console.log(JSON.stringify(rest))
else console.log(summary(report))
clearInterval(keepAlive)
process.exit(report.total === 0 ? 0 : 1)
