// Runs the `tributary` command line as a subprocess (dist/bin/tributary.js, the bundle `npm run build` makes), as a user would.
import { spawn } from 'node:child_process'
import { BROKER_MAIN } from './broker-process.js'

export interface CliRun {
  code: number | null
  signal: NodeJS.Signals | null
  stdout: string
  /** stdout as the bytes written. */
  stdoutBytes: Buffer
  stderr: string
}

export interface CliRunOptions {
  /** Extra environment (TRIBUTARY_BOOTSTRAP is removed unless given here). */
  env?: Record<string, string>
  /** Written to stdin, which is then closed; without it stdin is empty. */
  input?: string | Buffer
  /** SIGKILL after this long. Default 120 s. */
  timeoutMs?: number
}

export function tributary(args: string[], opts: CliRunOptions = {}): Promise<CliRun> {
  return new Promise((resolve, reject) => {
    const env: Record<string, string | undefined> = { ...process.env, ...opts.env }
    if (opts.env?.TRIBUTARY_BOOTSTRAP === undefined) delete env.TRIBUTARY_BOOTSTRAP
    const child = spawn(process.execPath, [BROKER_MAIN, ...args], { stdio: ['pipe', 'pipe', 'pipe'], env })
    const stdout: Buffer[] = []
    let stderr = ''
    child.stdout.on('data', (b: Buffer) => stdout.push(b))
    child.stderr.setEncoding('utf8').on('data', (s: string) => (stderr += s))
    child.stdin.on('error', () => {}) // the command may exit before reading all of its input
    child.stdin.end(opts.input ?? '')
    const timer = setTimeout(() => child.kill('SIGKILL'), opts.timeoutMs ?? 120_000)
    child.on('error', reject)
    child.on('close', (code, signal) => {
      clearTimeout(timer)
      const stdoutBytes = Buffer.concat(stdout)
      resolve({ code, signal, stdout: stdoutBytes.toString('utf8'), stdoutBytes, stderr })
    })
  })
}

/** Throws with the command's stderr unless it exited 0. */
export async function tributaryOk(args: string[], opts: CliRunOptions = {}): Promise<CliRun> {
  const r = await tributary(args, opts)
  if (r.code !== 0) throw new Error(`tributary ${args.join(' ')} exited ${r.code ?? r.signal}:\n${r.stderr}${r.stdout}`)
  return r
}
