// npm run chaos -- [--seconds N] [--seed N] [--nemesis kill,pause,partition,etcd-kill,disk,power|all|none]
//                  [--partitions N] [--no-transactions] [--share-members N] [--java-share-members N]
//                  [--calm A-B] [--fault A-B] [--history FILE] [--broker-logs DIR] [--json]
// --share-members: members of the share group (KIP-932) reading the topic; default 2, 0 for none.
// --java-share-members N: members of the same group through Java's KafkaShareConsumer (default 0;
// needs java and mvn, and builds test/interop/java first).
// --calm and --fault: the nemesis's calm spells and fault lengths, in seconds (defaults 2-5, 3-8).
// One chaos run (chaos-run.ts): prints the seed first, progress every few seconds, each fault as
// it starts and ends, and the summary (operations, faults, anomalies per class with the operations
// that show them). --history writes the whole history as JSON (checker.ts can read it again);
// --broker-logs writes each broker's stderr, over its restarts, to DIR/b<id>.log.
// Exits 1 on any anomaly.
import { writeFileSync } from 'node:fs'
import { chaosRun, summary } from './chaos-run.js'
import { type NemesisKind, parseNemeses } from './nemesis.js'

const args = process.argv.slice(2)
const opt = (name: string) => {
  const i = args.indexOf(`--${name}`)
  return i >= 0 ? args[i + 1] : undefined
}
const seed = Number(opt('seed') ?? Math.floor(Math.random() * 2 ** 31))
const seconds = Number(opt('seconds') ?? 60)
const partitions = Number(opt('partitions') ?? 3)
const shareMembers = Number(opt('share-members') ?? 2)
const javaShareMembers = Number(opt('java-share-members') ?? 0)
let nemeses: NemesisKind[] = []
try {
  nemeses = parseNemeses(opt('nemesis') ?? 'all')
} catch (err) {
  console.error((err as Error).message)
  process.exit(2)
}
/** "A-B" seconds → [A, B] ms; undefined when not given. */
function range(name: string): [number, number] | undefined {
  const v = opt(name)
  if (v === undefined) return undefined
  const m = /^(\d+(?:\.\d+)?)-(\d+(?:\.\d+)?)$/.exec(v)
  if (!m || Number(m[1]) >= Number(m[2])) {
    console.error(`--${name}: expected A-B seconds with A < B, got ${JSON.stringify(v)}`)
    process.exit(2)
  }
  return [Number(m[1]) * 1000, Number(m[2]) * 1000]
}
const calmMs = range('calm')
const faultMs = range('fault')
if (
  !Number.isInteger(seed) ||
  !(seconds > 0) ||
  !Number.isInteger(partitions) ||
  partitions < 1 ||
  !Number.isInteger(shareMembers) ||
  shareMembers < 0 ||
  !Number.isInteger(javaShareMembers) ||
  javaShareMembers < 0
) {
  console.error(
    'usage: npm run chaos -- [--seconds N] [--seed N] [--nemesis kill,pause,partition,etcd-kill,disk,power|all|none] [--partitions N] [--no-transactions] [--share-members N] [--java-share-members N] [--calm A-B] [--fault A-B] [--history FILE] [--broker-logs DIR] [--json]',
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
  shareMembers,
  javaShareMembers,
  calmMs,
  faultMs,
  ...(opt('broker-logs') ? { brokerLogDir: opt('broker-logs') } : {}),
  log: (l) => console.error(l),
})
const file = opt('history')
if (file) writeFileSync(file, JSON.stringify(report.history))
const { history: _history, ...rest } = report
if (args.includes('--json')) console.log(JSON.stringify(rest))
else console.log(summary(report))
clearInterval(keepAlive)
process.exit(report.total === 0 ? 0 : 1)
