// Where Tributary's broker spends its CPU under one of the bench's loads: the broker is started
// with `node --cpu-prof`, the load runs, the broker stops and its profile is summed up by
// function, by source file and by kind (garbage collection, V8/native, Node's internals, packages,
// the project's modules). The broker's user and system CPU seconds over the load come from
// /proc/<pid>/stat: the system part is the kernel's (socket and page-cache copies), which the
// JavaScript profile sees only as time inside the native call that made it.
//   node dist/bench/profile.js LOAD [records] [--top=N] [--json] [--keep=DIR]
//                              [--override=k=v ...] [--node-arg=ARG ...]
// --override sets a broker config for the profiled broker (e.g. tributary.log.tail.cache.bytes=0),
// --node-arg gives node an option (e.g. --trace-gc, whose lines go to the broker's log in DIR).
// LOAD: rdk-produce (rdkafka_performance -P, acks=1), rdk-produce-idempotent (acks=all,
// enable.idempotence=true), java-produce (ProducerPerformance, acks=all, idempotent),
// java-consume (ConsumerPerformance), rdk-consume (rdkafka_performance -G). Consume loads read a
// topic filled first by a broker without the profiler, on the same data directory.
// Records default to 10 M (java-produce: 3 M), as in `npm run bench`. The profile covers the
// broker's whole life, so its start-up (about 0.2 s of CPU) is in it; the load is the rest.
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { basename, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { type JavaEnv, prepareKafka, startTributary } from './harness/brokers.js'
import { consumerPerformance, createTopics, fill100b, producerPerformance } from './harness/generators.js'
import { describeMachine } from './harness/machine.js'
import { rdkafkaAvailable, rdkafkaConsume, rdkafkaProduce } from './harness/rdkafka.js'
import { cpuTimesOf } from './harness/util.js'

const LOADS = ['rdk-produce', 'rdk-produce-idempotent', 'java-produce', 'java-consume', 'rdk-consume'] as const
type Load = (typeof LOADS)[number]

const args = process.argv.slice(2)
const load = args[0] as Load
if (!LOADS.includes(load)) {
  console.error(
    `usage: node dist/bench/profile.js ${LOADS.join('|')} [records] [--top=N] [--json] [--keep=DIR] [--override=k=v ...] [--node-arg=ARG ...]`,
  )
  process.exit(2)
}
const positional = args.slice(1).find((a) => !a.startsWith('--'))
const records = Number(positional ?? (load === 'java-produce' ? 3_000_000 : 10_000_000))
const top = Number(args.find((a) => a.startsWith('--top='))?.split('=')[1] ?? 20)
const json = args.includes('--json')
const keep = args.find((a) => a.startsWith('--keep='))?.split('=')[1]
const valuesOf = (flag: string) => args.filter((a) => a.startsWith(`${flag}=`)).map((a) => a.slice(flag.length + 1))
const overrides = valuesOf('--override')
const nodeArgs = valuesOf('--node-arg')
const TOPIC = 'profile-100b'
/** The command line as tsc compiled it, module by module (npm run build bundles it into dist/bin). */
const UNBUNDLED = fileURLToPath(new URL('../src/cli/main.js', import.meta.url))

interface ProfileNode {
  id: number
  callFrame: { functionName: string; url: string; lineNumber: number }
}
interface CpuProfile {
  nodes: ProfileNode[]
  samples: number[]
  timeDeltas: number[]
}

/** The kind of code a profile node is, for the summary by kind. */
function kindOf(n: ProfileNode): string {
  const { functionName, url } = n.callFrame
  if (functionName === '(garbage collector)') return 'garbage collection'
  if (functionName === '(program)') return 'V8 and native, outside any JS function'
  if (functionName === '(idle)') return 'idle'
  if (url === '') return `native calls from JS`
  if (url.startsWith('node:')) return "Node's own modules (node:*)"
  const pkg = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(url)
  if (pkg) return `package ${pkg[1]}`
  return "the project's modules"
}

function fileOf(n: ProfileNode): string {
  const { url, functionName } = n.callFrame
  if (url === '') return functionName.startsWith('(') ? functionName : '(native)'
  const dist = /\/dist\/(.*)$/.exec(url)
  return dist ? dist[1]! : url.replace(/^file:\/\//, '')
}

interface Summary {
  sampledMs: number
  busyMs: number
  byKind: [string, number][]
  byFile: [string, number][]
  byFunction: [string, number][]
}

function summarise(p: CpuProfile): Summary {
  const nodes = new Map(p.nodes.map((n) => [n.id, n]))
  const self = new Map<number, number>()
  // timeDeltas[i] is the time from the previous sample to sample i: it is sample i's.
  for (let i = 0; i < p.samples.length; i++) self.set(p.samples[i]!, (self.get(p.samples[i]!) ?? 0) + (p.timeDeltas[i] ?? 0))
  const add = (m: Map<string, number>, k: string, us: number) => m.set(k, (m.get(k) ?? 0) + us)
  const byKind = new Map<string, number>()
  const byFile = new Map<string, number>()
  const byFunction = new Map<string, number>()
  let sampled = 0
  let idle = 0
  for (const [id, us] of self) {
    const n = nodes.get(id)!
    sampled += us
    const kind = kindOf(n)
    if (kind === 'idle') {
      idle += us
      continue
    }
    add(byKind, kind, us)
    add(byFile, fileOf(n), us)
    const f = n.callFrame
    add(byFunction, `${f.functionName || '(anonymous)'} ${fileOf(n)}${f.url ? `:${f.lineNumber + 1}` : ''}`, us)
  }
  const sorted = (m: Map<string, number>) => [...m].sort((a, b) => b[1] - a[1]).map(([k, us]) => [k, us / 1000] as [string, number])
  return {
    sampledMs: sampled / 1000,
    busyMs: (sampled - idle) / 1000,
    byKind: sorted(byKind),
    byFile: sorted(byFile),
    byFunction: sorted(byFunction),
  }
}

async function runLoad(tools: JavaEnv, bootstrap: string): Promise<number> {
  switch (load) {
    case 'rdk-produce':
      return (await rdkafkaProduce(bootstrap, TOPIC, records, 100, false)).recordsPerSec
    case 'rdk-produce-idempotent':
      return (await rdkafkaProduce(bootstrap, TOPIC, records, 100, true)).recordsPerSec
    case 'java-produce':
      return (
        await producerPerformance(tools, bootstrap, { topic: TOPIC, records, recordSize: 100, acks: 'all', lingerMs: 5, batchSize: 65_536 })
      ).recordsPerSec
    case 'java-consume':
      return (await consumerPerformance(tools, bootstrap, TOPIC, records)).recordsPerSec
    case 'rdk-consume':
      return (await rdkafkaConsume(bootstrap, TOPIC, 'profile', records)).recordsPerSec
  }
}

async function main(): Promise<void> {
  const machine = await describeMachine()
  const prepared = await prepareKafka(machine.java, machine.maven, (s) => console.error(s))
  if ('skip' in prepared) throw new Error(`Kafka's tools are needed to create the topic: ${prepared.skip}`)
  const tools = prepared
  const rdk = load.startsWith('rdk') ? await rdkafkaAvailable() : null
  if (rdk && !rdk.available) throw new Error(rdk.reason)
  const tmp = keep ?? mkdtempSync(join(tmpdir(), 'profile-'))
  const dir = join(tmp, 'broker')
  const profDir = join(tmp, 'prof')
  try {
    if (load.endsWith('consume')) {
      const filler = await startTributary(dir)
      await createTopics(tools, filler.bootstrap, 8, [TOPIC])
      await fill100b(tools, filler.bootstrap, TOPIC, records)
      await filler.stop()
    }
    const broker = await startTributary(dir, {
      nodeArgs: ['--cpu-prof', `--cpu-prof-dir=${profDir}`, ...nodeArgs],
      main: UNBUNDLED,
      overrides,
    })
    if (!load.endsWith('consume')) await createTopics(tools, broker.bootstrap, 8, [TOPIC])
    const c0 = cpuTimesOf(broker.pid)
    const t0 = performance.now()
    const rps = await runLoad(tools, broker.bootstrap)
    const wallS = (performance.now() - t0) / 1000
    const c1 = cpuTimesOf(broker.pid)
    await broker.stop(30_000)
    const file = readdirSync(profDir).find((f) => f.endsWith('.cpuprofile'))
    if (!file) throw new Error(`the broker wrote no profile to ${profDir}`)
    const s = summarise(JSON.parse(readFileSync(join(profDir, file), 'utf8')) as CpuProfile)
    const cpu = { user: c1.user - c0.user, system: c1.system - c0.system }
    if (json) {
      console.log(JSON.stringify({ load, records, recordsPerSec: rps, wallS, cpu, ...s, profile: keep ? join(profDir, file) : undefined }))
      return
    }
    const pct = (ms: number) => `${((100 * ms) / s.busyMs).toFixed(1)} %`
    const perM = (sec: number) => ((sec / records) * 1e6).toFixed(3)
    const out = [
      `${load}: ${records.toLocaleString('en-US')} records of 100 B in ${wallS.toFixed(1)} s, ${Math.round(rps).toLocaleString('en-US')} records/s`,
      `broker CPU over the load: user ${cpu.user.toFixed(2)} s + system ${cpu.system.toFixed(2)} s = ${(cpu.user + cpu.system).toFixed(2)} s` +
        ` (${perM(cpu.user + cpu.system)} s per million records; system ${perM(cpu.system)})`,
      `main thread in the profile: busy ${(s.busyMs / 1000).toFixed(2)} s of ${(s.sampledMs / 1000).toFixed(2)} s sampled (start-up included)`,
      '',
      'by kind:',
      ...s.byKind.map(([k, ms]) => `  ${pct(ms).padStart(7)}  ${(ms / 1000).toFixed(2).padStart(6)} s  ${k}`),
      '',
      'by file (top 12):',
      ...s.byFile.slice(0, 12).map(([k, ms]) => `  ${pct(ms).padStart(7)}  ${(ms / 1000).toFixed(2).padStart(6)} s  ${k}`),
      '',
      `by function, self time (top ${top}):`,
      ...s.byFunction.slice(0, top).map(([k, ms]) => `  ${pct(ms).padStart(7)}  ${(ms / 1000).toFixed(2).padStart(6)} s  ${k}`),
    ]
    if (keep) out.push('', `profile: ${join(profDir, file)} (${basename(file)})`)
    console.log(out.join('\n'))
  } finally {
    if (!keep) rmSync(tmp, { recursive: true, force: true })
  }
}

main().then(
  () => process.exit(0),
  (err: unknown) => {
    console.error(err)
    process.exit(1)
  },
)
