// npm run fuzz -- [--seconds N] [--cases N] [--seed N] [--json]: one protocol fuzzing run
// (fuzz-run.ts) against a fresh `tributary start` process; prints the seed first, progress while
// it runs, and the report at the end. Exits 1 when there is a finding.
import { fuzzRun } from './fuzz-run.js'

const args = process.argv.slice(2)
const opt = (name: string) => {
  const i = args.indexOf(`--${name}`)
  return i >= 0 ? args[i + 1] : undefined
}
const seed = Number(opt('seed') ?? Math.floor(Math.random() * 2 ** 31))
const seconds = opt('seconds') === undefined ? undefined : Number(opt('seconds'))
const cases = opt('cases') === undefined ? undefined : Number(opt('cases'))
console.error(`fuzz: seed ${seed}`)
// The run's own sockets and timers come and go; this keeps the process up until the report is out.
const keepAlive = setInterval(() => {}, 1000)
const report = await fuzzRun({ seed, seconds: seconds ?? (cases === undefined ? 60 : undefined), cases, log: (l) => console.error(l) })
if (args.includes('--json')) console.log(JSON.stringify(report))
else console.log(report)
clearInterval(keepAlive)
process.exit(report.findings.length === 0 ? 0 : 1)
