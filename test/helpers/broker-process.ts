// Starts the real broker (dist/bin/tributary.js, the bundled command) as a child process for integration tests.
//
// The broker prints one line to stderr containing `listening on PLAINTEXT://host:port` once it
// serves; we wait for it (15 s), then hand back host/port and controls. Every child is tracked and
// SIGKILLed when the test process exits, so a failing test never leaves a broker behind.

import assert from 'node:assert/strict'
import { type ChildProcess, spawn } from 'node:child_process'
import { mkdtempSync, rmSync } from 'node:fs'
import { constants as osConstants, tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'

/** dist/test/helpers/broker-process.js → dist/bin/tributary.js */
export const BROKER_MAIN = fileURLToPath(new URL('../../bin/tributary.js', import.meta.url))

const LISTENING_RE = /listening on (\w+):\/\/([^\s:]+|\[[^\]]+\]):(\d+)/
/** Printed before the line above when the HTTP listener is on. */
const HTTP_RE = /HTTP listening urls=\["([^"]+)"/
const START_TIMEOUT_MS = 15_000
const STOP_TIMEOUT_MS = 20_000
const MAX_CAPTURE = 4 * 1024 * 1024

const live = new Set<ChildProcess>()
/** Temporary data dirs the helper made and has not removed yet. */
const ownDirs = new Set<string>()
let exitHookInstalled = false

function killAll(): void {
  for (const child of live) {
    try {
      child.kill('SIGKILL')
    } catch {
      // already gone
    }
  }
  for (const dir of ownDirs) {
    try {
      rmSync(dir, { recursive: true, force: true })
    } catch {
      // best effort
    }
  }
}

function installExitHook(): void {
  if (exitHookInstalled) return
  exitHookInstalled = true
  process.on('exit', killAll)
  // A signal ends the process without 'exit' unless someone handles it; when nobody else does
  // (a file run on its own), kill the brokers and exit as the signal would have.
  for (const sig of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) {
    if (process.listenerCount(sig) > 0) continue
    process.once(sig, () => {
      killAll()
      process.exit(128 + (osConstants.signals[sig] ?? 0))
    })
  }
}

export interface StartBrokerOptions {
  /** Data directory (log.dirs). When omitted a temporary one is made and removed by cleanup(). */
  dataDir?: string
  /** Extra `--override k=v` settings (listeners and log.dirs are set by the helper unless given). */
  overrides?: Record<string, string>
  /** Extra environment variables. */
  env?: Record<string, string>
  /** The script to run instead of BROKER_MAIN (a test entry that starts the broker as `tributary start` does). */
  main?: string
}

export interface BrokerProcess {
  readonly host: string
  readonly port: number
  /** host:port */
  readonly bootstrap: string
  /** The HTTP listener's base URL (http://host:port); undefined when it was turned off. */
  readonly http: string | undefined
  readonly dataDir: string
  readonly pid: number
  /** SIGTERM; resolves with the exit code (128 + signal number if it died of a signal). */
  stop(): Promise<number>
  /** SIGKILL; resolves once the process is gone. */
  kill9(): Promise<void>
  /** Everything the broker wrote to stderr so far (last 4 MiB). */
  stderr(): string
  stdout(): string
  /** True while the process has not exited. */
  alive(): boolean
  /** Kills the process if it still runs and removes the data dir if the helper created it. */
  cleanup(): Promise<void>
}

function exitCodeOf(code: number | null, signal: NodeJS.Signals | null): number {
  if (code !== null) return code
  if (signal) return 128 + (osConstants.signals[signal] ?? 0)
  return -1
}

/** Awaits p while a referenced timer keeps the event loop alive (the child itself is unref'd). */
async function holdOpen<T>(p: Promise<T>): Promise<T> {
  const keepAlive = setInterval(() => {}, 1000)
  try {
    return await p
  } finally {
    clearInterval(keepAlive)
  }
}

export async function startBrokerProcess(opts: StartBrokerOptions = {}): Promise<BrokerProcess> {
  installExitHook()
  const ownDir = opts.dataDir === undefined
  const dataDir = opts.dataDir ?? mkdtempSync(join(tmpdir(), 'tributary-it-'))
  if (ownDir) ownDirs.add(dataDir)
  const overrides: Record<string, string> = {
    listeners: 'PLAINTEXT://127.0.0.1:0',
    // On a free port: brokers of tests running at once never collide on tributary start's 8082.
    'tributary.http.listeners': 'http://127.0.0.1:0',
    'log.dirs': dataDir,
    ...opts.overrides,
  }
  const args = [opts.main ?? BROKER_MAIN, 'start']
  for (const [k, v] of Object.entries(overrides)) args.push('--override', `${k}=${v}`)

  const child = spawn(process.execPath, args, {
    stdio: ['ignore', 'pipe', 'pipe'],
    env: { ...process.env, ...opts.env },
  })
  live.add(child)
  // The broker must not keep the test process alive: if a test fails without stopping it, the
  // process still exits and the 'exit' hook kills it. Every wait on the child below holds a
  // referenced timer, so the event loop stays up while we wait on purpose.
  child.unref()
  ;(child.stdout as unknown as { unref(): void }).unref()
  ;(child.stderr as unknown as { unref(): void }).unref()

  let err = ''
  let out = ''
  child.stderr!.setEncoding('utf8')
  child.stdout!.setEncoding('utf8')
  child.stderr!.on('data', (s: string) => {
    err += s
    if (err.length > MAX_CAPTURE) err = err.slice(err.length - MAX_CAPTURE)
  })
  child.stdout!.on('data', (s: string) => {
    out += s
    if (out.length > MAX_CAPTURE) out = out.slice(out.length - MAX_CAPTURE)
  })

  let exitInfo: { code: number | null; signal: NodeJS.Signals | null } | null = null
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => {
    child.once('exit', (code, signal) => {
      exitInfo = { code, signal }
      live.delete(child)
      resolve(exitInfo)
    })
  })
  // 'exit' may fire before the stdio streams are drained; wait for 'close' too where it matters.
  const closed = new Promise<void>((resolve) => child.once('close', () => resolve()))

  const removeDir = () => {
    if (!ownDir) return
    rmSync(dataDir, { recursive: true, force: true })
    ownDirs.delete(dataDir)
  }

  let listen: RegExpExecArray
  try {
    listen = await new Promise<RegExpExecArray>((resolve, reject) => {
      const timer = setTimeout(() => {
        cleanupListeners()
        reject(new Error(`broker did not print "listening on" within ${START_TIMEOUT_MS} ms; stderr:\n${err}`))
      }, START_TIMEOUT_MS)
      const onData = () => {
        const m = LISTENING_RE.exec(err)
        if (m) {
          cleanupListeners()
          resolve(m)
        }
      }
      const onExit = (code: number | null, signal: NodeJS.Signals | null) => {
        // Let the stream deliver what it still holds before reporting.
        setImmediate(() => {
          cleanupListeners()
          reject(new Error(`broker exited (code ${code}, signal ${signal}) before listening; stderr:\n${err}\nstdout:\n${out}`))
        })
      }
      const cleanupListeners = () => {
        clearTimeout(timer)
        child.stderr!.off('data', onData)
        child.off('exit', onExit)
      }
      child.stderr!.on('data', onData)
      child.once('exit', onExit)
      onData()
    })
  } catch (e) {
    child.kill('SIGKILL')
    await holdOpen(exited)
    removeDir()
    throw e
  }

  let host = listen[2]!
  if (host.startsWith('[')) host = host.slice(1, -1)
  const port = Number(listen[3])
  const bootstrap = host.includes(':') ? `[${host}]:${port}` : `${host}:${port}`

  const stop = async (): Promise<number> => {
    if (exitInfo) return exitCodeOf(exitInfo.code, exitInfo.signal)
    child.kill('SIGTERM')
    let timer: NodeJS.Timeout | undefined
    const timeout = new Promise<'timeout'>((resolve) => {
      timer = setTimeout(() => resolve('timeout'), STOP_TIMEOUT_MS)
    })
    const r = await Promise.race([exited, timeout])
    if (r === 'timeout') {
      child.kill('SIGKILL')
      await exited
      clearTimeout(timer)
      throw new Error(`broker did not exit within ${STOP_TIMEOUT_MS} ms of SIGTERM; stderr:\n${err}`)
    }
    await closed
    clearTimeout(timer)
    return exitCodeOf(r.code, r.signal)
  }

  const kill9 = async (): Promise<void> => {
    if (!exitInfo) child.kill('SIGKILL')
    await holdOpen(exited.then(() => closed))
  }

  const http = HTTP_RE.exec(err)?.[1]
  return {
    host,
    port,
    bootstrap,
    http,
    dataDir,
    pid: child.pid!,
    stop,
    kill9,
    stderr: () => err,
    stdout: () => out,
    alive: () => exitInfo === null,
    cleanup: async () => {
      if (!exitInfo) await kill9()
      removeDir()
    },
  }
}

/** A temporary directory for tests that manage the data dir themselves (restart tests). */
export function makeTempDir(prefix = 'tributary-it-'): { path: string; remove(): void } {
  const path = mkdtempSync(join(tmpdir(), prefix))
  return { path, remove: () => rmSync(path, { recursive: true, force: true }) }
}

/**
 * End of a test file: the broker must still be running, and must then stop cleanly (exit code 0
 * after SIGTERM); its data is removed either way.
 */
export async function stopAndCheck(broker: BrokerProcess | undefined): Promise<void> {
  if (!broker) return
  const alive = broker.alive()
  const code = await broker.stop()
  await broker.cleanup()
  assert.ok(alive, `broker was not running at the end of the file; stderr tail:\n${broker.stderr().slice(-3000)}`)
  assert.equal(code, 0, `broker exit code after SIGTERM; stderr tail:\n${broker.stderr().slice(-3000)}`)
}
