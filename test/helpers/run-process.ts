// Runs an external program (python3, java, mvn …) to completion for an interop test: its output,
// exit code and duration. A program that cannot start or outlives its timeout rejects, so the test
// fails with a hint instead of hanging or skipping.
import { spawn } from 'node:child_process'
import { existsSync } from 'node:fs'
import { join } from 'node:path'

export interface ProcResult {
  code: number | null
  signal: NodeJS.Signals | null
  stdout: string
  stderr: string
  ms: number
}

export function runProcess(
  cmd: string,
  args: string[],
  opts: { timeoutMs: number; installHint?: string; env?: Record<string, string> },
): Promise<ProcResult> {
  const t0 = Date.now()
  return new Promise((resolve, reject) => {
    const child = spawn(cmd, args, { stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, ...opts.env } })
    let stdout = ''
    let stderr = ''
    child.stdout.setEncoding('utf8').on('data', (s: string) => (stdout += s))
    child.stderr.setEncoding('utf8').on('data', (s: string) => (stderr += s))
    let timedOut = false
    const timer = setTimeout(() => {
      timedOut = true
      child.kill('SIGKILL')
    }, opts.timeoutMs)
    child.once('error', (e: NodeJS.ErrnoException) => {
      clearTimeout(timer)
      const hint =
        e.code === 'ENOENT' ? ` — '${cmd}' is not installed or not on PATH${opts.installHint ? `; ${opts.installHint}` : ''}` : ''
      reject(new Error(`cannot run ${cmd} ${args.join(' ')}: ${e.message}${hint}`))
    })
    child.once('close', (code, signal) => {
      clearTimeout(timer)
      const result = { code, signal, stdout, stderr, ms: Date.now() - t0 }
      if (timedOut) reject(new Error(`${cmd} ${args.join(' ')} timed out after ${opts.timeoutMs} ms\n${show(result)}`))
      else resolve(result)
    })
  })
}

export function show(r: ProcResult): string {
  return `exit ${r.code} signal ${r.signal} after ${r.ms} ms\nstdout:\n${r.stdout.slice(-8000)}\nstderr:\n${r.stderr.slice(-12000)}`
}

/** The last line of stdout parsed as JSON (the interop scripts print one JSON object). */
export function lastJsonLine<T>(r: ProcResult, what: string): T {
  const line = r.stdout.trim().split('\n').pop() ?? ''
  try {
    return JSON.parse(line) as T
  } catch {
    throw new Error(`${what} printed no JSON line\n${show(r)}`)
  }
}

/** Resolves when the command exits 0; rejects with its output otherwise. */
export async function runOk(cmd: string, args: string[], opts: { timeoutMs: number; installHint?: string }): Promise<ProcResult> {
  const r = await runProcess(cmd, args, opts)
  if (r.code !== 0) throw new Error(`${cmd} ${args.join(' ')} failed\n${show(r)}`)
  return r
}

/** The java launcher Maven itself would use: $JAVA_HOME/bin/java when set, else java on PATH. */
export function javaCommand(): string {
  const home = process.env.JAVA_HOME
  if (home) {
    const exe = join(home, 'bin', process.platform === 'win32' ? 'java.exe' : 'java')
    if (existsSync(exe)) return exe
  }
  return 'java'
}
