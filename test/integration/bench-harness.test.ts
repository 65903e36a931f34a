// `npm run bench -- --quick` on a machine without Java: the harness must still measure Tributary,
// say that the Apache Kafka side was skipped and why, exit 0, and write its results. Run here with
// a PATH that holds only `git` (no java, no mvn), two of the quick scenarios, and --out so that the
// repository's bench/results and docs/benchmarks.md are left alone. No figure is judged: only that
// the numbers exist and hang together.
import assert from 'node:assert/strict'
import { spawn } from 'node:child_process'
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, symlinkSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { after, describe, it } from 'node:test'
import { fileURLToPath } from 'node:url'

const HARNESS = fileURLToPath(new URL('../../bench/harness/main.js', import.meta.url))
const ROOT = fileURLToPath(new URL('../../../', import.meta.url))

interface Run {
  code: number | null
  stdout: string
  stderr: string
}

function harness(args: string[], path: string): Promise<Run> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [HARNESS, ...args], {
      cwd: ROOT,
      stdio: ['ignore', 'pipe', 'pipe'],
      env: { ...process.env, PATH: path },
    })
    let stdout = ''
    let stderr = ''
    child.stdout.setEncoding('utf8').on('data', (s: string) => (stdout += s))
    child.stderr.setEncoding('utf8').on('data', (s: string) => (stderr += s))
    const timer = setTimeout(() => child.kill('SIGKILL'), 240_000)
    child.on('error', reject)
    child.on('close', (code) => {
      clearTimeout(timer)
      resolve({ code, stdout, stderr })
    })
  })
}

/** Where `git` is, so the harness can still record the commit it measured. */
function whichGit(): string | undefined {
  for (const dir of (process.env.PATH ?? '').split(':')) {
    if (dir && existsSync(join(dir, 'git'))) return join(dir, 'git')
  }
  return undefined
}

describe('npm run bench -- --quick without Java', () => {
  const dir = mkdtempSync(join(tmpdir(), 'bench-harness-test-'))
  const bin = join(dir, 'bin')
  const out = join(dir, 'results')
  after(() => rmSync(dir, { recursive: true, force: true }))

  it('measures Tributary, says the Kafka side was skipped and why, and writes its results to --out', async () => {
    const git = whichGit()
    mkdirSync(bin)
    if (git) symlinkSync(git, join(bin, 'git'))
    const doc = join(ROOT, 'docs/benchmarks.md')
    const docBefore = statSync(doc).mtimeMs

    const r = await harness(['--quick', '--scenario', 'startup,perf-produce-100b-acks1', '--out', out], bin)
    assert.equal(r.code, 0, `harness exit ${r.code}\n${r.stdout.slice(-3000)}\n${r.stderr.slice(-3000)}`)
    assert.match(r.stdout, /The Apache Kafka side is SKIPPED: no `java` on PATH/)
    assert.match(r.stdout, /The Apache Kafka side was skipped: no `java` on PATH/)
    assert.match(r.stdout, /docs\/benchmarks\.md not updated \(--out was given\)/)
    assert.equal(statSync(doc).mtimeMs, docBefore, 'docs/benchmarks.md must not change')

    const files = readdirSync(out).sort()
    const date = files.find((f) => f.endsWith('-quick-startup.json'))?.replace('-quick-startup.json', '')
    assert.ok(date, `no startup result among ${files.join(', ')}`)
    assert.deepEqual(files, [`${date}-quick-chart.svg`, `${date}-quick-perf-produce-100b-acks1.json`, `${date}-quick-startup.json`])
    assert.match(readFileSync(join(out, `${date}-quick-chart.svg`), 'utf8'), /^<svg /)

    const startup = JSON.parse(readFileSync(join(out, `${date}-quick-startup.json`), 'utf8'))
    assert.equal(startup.mode, 'quick')
    assert.match(startup.kafka.skipped, /no `java` on PATH/)
    assert.equal(startup.machine.java, null)
    assert.ok(startup.machine.cores >= 1)
    assert.equal(startup.machine.node, process.version)
    if (git) assert.match(startup.tributary.commit, /^[0-9a-f]{7,}/)
    assert.ok(startup.scenario.median.tributary.startup_ms > 0)
    assert.ok(startup.scenario.median.tributary.idle_rss_mb > 0)
    assert.deepEqual(startup.scenario.median.kafka ?? {}, {}, 'no Kafka figures')

    const produce = JSON.parse(readFileSync(join(out, `${date}-quick-perf-produce-100b-acks1.json`), 'utf8'))
    const runs = produce.scenario.runs.tributary as {
      records_per_sec: number
      p50_ms: number
      p99_ms: number
      peak_rss_mb: number
      broker_cpu_s: number
      broker_cpu_s_per_m: number
      broker_cpu_s_per_gb: number
    }[]
    assert.equal(runs.length, 1)
    assert.ok(runs[0]!.records_per_sec > 0)
    // The cost headline: the run's broker CPU per million records and per GB of 100-byte values.
    const records = produce.scenario.params.records as number
    assert.ok(runs[0]!.broker_cpu_s > 0)
    assert.ok(Math.abs(runs[0]!.broker_cpu_s_per_m - (runs[0]!.broker_cpu_s / records) * 1e6) < 1e-9)
    assert.ok(Math.abs(runs[0]!.broker_cpu_s_per_gb - (runs[0]!.broker_cpu_s / (records * 100)) * 1e9) < 1e-9)
    assert.match(r.stdout, /perf-produce-100b-acks1 +broker CPU per million records/)
    assert.ok(runs[0]!.p50_ms <= runs[0]!.p99_ms)
    assert.ok(runs[0]!.peak_rss_mb > 0)
    assert.equal((produce.scenario.runs.kafka ?? []).length, 0)
  })
})
