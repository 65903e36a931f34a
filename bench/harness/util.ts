// Small helpers for the benchmark harness: child processes, ports, the first-answer probe, RSS.
import { type ChildProcess, spawn } from 'node:child_process'
import { readFileSync, writeFileSync } from 'node:fs'
import { connect, createServer } from 'node:net'
import { fileURLToPath } from 'node:url'

/** dist/bench/harness/util.js → the repository root. */
export const ROOT = fileURLToPath(new URL('../../../', import.meta.url))

export const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms))

export function median(xs: readonly number[]): number {
  const s = xs.filter((x) => Number.isFinite(x)).sort((a, b) => a - b)
  if (s.length === 0) return Number.NaN
  const m = Math.floor(s.length / 2)
  return s.length % 2 === 1 ? s[m]! : (s[m - 1]! + s[m]!) / 2
}

/** A port that was free a moment ago on 127.0.0.1. */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = createServer()
    srv.once('error', reject)
    srv.listen(0, '127.0.0.1', () => {
      const port = (srv.address() as { port: number }).port
      srv.close(() => resolve(port))
    })
  })
}

export interface RunResult {
  code: number | null
  signal: NodeJS.Signals | null
  stdout: string
  stderr: string
  ms: number
}

/** Every child the harness started and has not seen exit: killed if the harness dies. */
const live = new Set<ChildProcess>()
let hooked = false
function track(child: ChildProcess): void {
  if (!hooked) {
    hooked = true
    process.on('exit', () => {
      for (const c of live) c.kill('SIGKILL')
    })
    for (const sig of ['SIGINT', 'SIGTERM'] as const) {
      process.once(sig, () => {
        for (const c of live) c.kill('SIGKILL')
        process.exit(130)
      })
    }
  }
  live.add(child)
  child.once('exit', () => live.delete(child))
}

/** Runs a command to completion, capturing its output; kills it after timeoutMs. */
export function run(cmd: string, args: readonly string[], opts: { timeoutMs?: number; cwd?: string } = {}): Promise<RunResult> {
  return new Promise((resolve, reject) => {
    const t0 = performance.now()
    const child = spawn(cmd, args, { stdio: ['ignore', 'pipe', 'pipe'], cwd: opts.cwd ?? ROOT })
    track(child)
    let stdout = ''
    let stderr = ''
    child.stdout!.on('data', (b: Buffer) => {
      stdout += b.toString()
      if (stdout.length > 8e6) stdout = stdout.slice(-4e6)
    })
    child.stderr!.on('data', (b: Buffer) => {
      stderr += b.toString()
      if (stderr.length > 8e6) stderr = stderr.slice(-4e6)
    })
    const timer = opts.timeoutMs ? setTimeout(() => child.kill('SIGKILL'), opts.timeoutMs) : undefined
    child.once('error', (err) => {
      if (timer) clearTimeout(timer)
      reject(err)
    })
    child.once('close', (code, signal) => {
      if (timer) clearTimeout(timer)
      resolve({ code, signal, stdout, stderr, ms: performance.now() - t0 })
    })
  })
}

/** Like run, but rejects unless the command exits 0; the error carries the tail of its output. */
export async function runOk(cmd: string, args: readonly string[], opts: { timeoutMs?: number; cwd?: string } = {}): Promise<RunResult> {
  const r = await run(cmd, args, opts)
  if (r.code !== 0) {
    const tail = (r.stderr.trim() || r.stdout.trim()).split('\n').slice(-15).join('\n')
    const name = cmd.endsWith('java') ? `java ${args.find((a) => /^(org|dev|kafka)\./.test(a)) ?? ''}` : cmd
    throw new Error(
      `${name} exited ${r.code ?? r.signal}${opts.timeoutMs && r.signal === 'SIGKILL' ? ` (killed after ${opts.timeoutMs} ms)` : ''}:\n${tail}`,
    )
  }
  return r
}

/** Spawns a long-running process with its output appended to logFile. */
export function spawnLogged(cmd: string, args: readonly string[], logFile: string, cwd = ROOT): ChildProcess {
  writeFileSync(logFile, `$ ${cmd} ${args.join(' ')}\n`)
  const child = spawn(cmd, args, { stdio: ['ignore', 'pipe', 'pipe'], cwd })
  track(child)
  const append = (b: Buffer) => {
    try {
      writeFileSync(logFile, b, { flag: 'a' })
    } catch {
      // the temp dir may be gone at the very end
    }
  }
  child.stdout!.on('data', append)
  child.stderr!.on('data', append)
  return child
}

/** ApiVersions v0, correlation id 1, client id "bench": the first request every Kafka client sends. */
function apiVersionsFrame(): Buffer {
  const clientId = Buffer.from('bench')
  const body = Buffer.alloc(2 + 2 + 4 + 2 + clientId.length)
  body.writeInt16BE(18, 0)
  body.writeInt16BE(0, 2)
  body.writeInt32BE(1, 4)
  body.writeInt16BE(clientId.length, 8)
  clientId.copy(body, 10)
  const size = Buffer.alloc(4)
  size.writeInt32BE(body.length)
  return Buffer.concat([size, body])
}

/** One attempt: true when a connection to port answers an ApiVersions request. */
function answersOnce(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const s = connect(port, '127.0.0.1')
    const done = (ok: boolean) => {
      s.destroy()
      resolve(ok)
    }
    s.setTimeout(2000, () => done(false))
    s.once('error', () => done(false))
    s.once('close', () => done(false))
    s.once('connect', () => s.write(apiVersionsFrame()))
    s.once('data', () => done(true))
  })
}

/**
 * Resolves with the time (performance.now()) of the first ApiVersions answer on port; polls every
 * millisecond. Rejects when the process exits first or after timeoutMs.
 */
export async function firstAnswer(port: number, child: ChildProcess, timeoutMs: number): Promise<number> {
  const deadline = performance.now() + timeoutMs
  for (;;) {
    if (child.exitCode !== null || child.signalCode !== null)
      throw new Error(`exited (${child.exitCode ?? child.signalCode}) before answering`)
    if (await answersOnce(port)) return performance.now()
    if (performance.now() > deadline) throw new Error(`no ApiVersions answer on port ${port} within ${timeoutMs} ms`)
    await sleep(1)
  }
}

/** VmRSS and VmHWM of a process in MiB (NaN when unreadable). */
export function memOf(pid: number): { rss: number; hwm: number } {
  try {
    const s = readFileSync(`/proc/${pid}/status`, 'utf8')
    const kb = (k: string) => Number(new RegExp(`^${k}:\\s+(\\d+) kB`, 'm').exec(s)?.[1] ?? Number.NaN)
    return { rss: kb('VmRSS') / 1024, hwm: kb('VmHWM') / 1024 }
  } catch {
    return { rss: Number.NaN, hwm: Number.NaN }
  }
}

/**
 * CPU time (user + system, every thread) a process has used so far, in seconds, from
 * /proc/PID/stat (fields 14 and 15, in clock ticks of 1/100 s on Linux); NaN where unreadable.
 */
export function cpuSecondsOf(pid: number): number {
  const t = cpuTimesOf(pid)
  return t.user + t.system
}

/** A process's user and system CPU seconds so far (/proc/<pid>/stat; USER_HZ 100), NaN when it is gone. */
export function cpuTimesOf(pid: number): { user: number; system: number } {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8')
    // The command name (field 2) may hold spaces: count the fields after its closing parenthesis.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ')
    return { user: Number(fields[11]) / 100, system: Number(fields[12]) / 100 }
  } catch {
    return { user: Number.NaN, system: Number.NaN }
  }
}

/** Resets VmHWM to the current RSS (Linux ≥ 4.0, `echo 5 > /proc/PID/clear_refs`); false if not allowed. */
export function resetPeak(pid: number): boolean {
  try {
    writeFileSync(`/proc/${pid}/clear_refs`, '5')
    return true
  } catch {
    return false
  }
}

/**
 * Watches a process's memory during one measurement: resets its peak (VmHWM) at the start and
 * samples VmRSS every 100 ms; stop() returns the peak in MiB (VmHWM when the reset worked, else the
 * largest sample).
 */
export function watchMemory(pid: number): { stop(): number } {
  const reset = resetPeak(pid)
  let maxRss = memOf(pid).rss
  const timer = setInterval(() => {
    const m = memOf(pid).rss
    if (m > maxRss || !Number.isFinite(maxRss)) maxRss = m
  }, 100)
  return {
    stop() {
      clearInterval(timer)
      const { rss, hwm } = memOf(pid)
      const sampled = Math.max(maxRss, Number.isFinite(rss) ? rss : 0)
      return reset && Number.isFinite(hwm) ? Math.max(hwm, sampled) : sampled
    },
  }
}

export function fmtNum(x: number, digits?: number): string {
  if (!Number.isFinite(x)) return '—'
  const d = digits ?? (Math.abs(x) >= 1000 ? 0 : Math.abs(x) >= 100 ? 0 : Math.abs(x) >= 10 ? 1 : 2)
  return x.toLocaleString('en-US', { minimumFractionDigits: d, maximumFractionDigits: d })
}
