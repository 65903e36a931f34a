// Start-up time of `tributary start`: from spawning the process to the first accepted connection
// answering ApiVersions, and of the in-process startBroker(). Prints the median of N runs.
//   node dist/bench/startup.js [runs=10]
import { spawn } from 'node:child_process'
import { mkdtempSync, rmSync } from 'node:fs'
import { connect } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { startBroker } from '../src/index.js'
import { encodeRequestHeader } from '../src/protocol/header.js'
import { Writer } from '../src/protocol/primitives/writer.js'

const MAIN = fileURLToPath(new URL('../bin/tributary.js', import.meta.url))
const runs = Number(process.argv[2] ?? 10)

function apiVersionsFrame(): Buffer {
  const w = new Writer()
  encodeRequestHeader(w, { apiKey: 18, apiVersion: 0, correlationId: 1, clientId: 'bench' }, false)
  const body = w.toBuffer()
  const size = Buffer.alloc(4)
  size.writeInt32BE(body.length)
  return Buffer.concat([size, body])
}

/** Resolves once a connection to port gets an ApiVersions answer; retries until it does. */
async function firstAnswer(port: number): Promise<void> {
  for (;;) {
    const ok = await new Promise<boolean>((resolve) => {
      const s = connect(port, '127.0.0.1')
      s.once('error', () => resolve(false))
      s.once('connect', () => s.write(apiVersionsFrame()))
      s.once('data', () => {
        s.destroy()
        resolve(true)
      })
    })
    if (ok) return
    await new Promise((r) => setTimeout(r, 1))
  }
}

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b)
  return s[Math.floor(s.length / 2)]!
}

async function processStart(port: number): Promise<number> {
  const dir = mkdtempSync(join(tmpdir(), 'tributary-bench-'))
  const t0 = performance.now()
  const child = spawn(
    process.execPath,
    [MAIN, 'start', '--override', `listeners=PLAINTEXT://127.0.0.1:${port}`, '--override', `log.dirs=${dir}`],
    {
      stdio: 'ignore',
    },
  )
  await firstAnswer(port)
  const ms = performance.now() - t0
  child.kill('SIGTERM')
  await new Promise((r) => child.once('exit', r))
  rmSync(dir, { recursive: true, force: true })
  return ms
}

async function inProcessStart(): Promise<number> {
  const t0 = performance.now()
  const b = await startBroker({ port: 0 })
  await firstAnswer(b.port)
  const ms = performance.now() - t0
  await b.close()
  return ms
}

const proc: number[] = []
const inproc: number[] = []
for (let i = 0; i < runs; i++) {
  proc.push(await processStart(19500 + i))
  inproc.push(await inProcessStart())
}
console.log(
  `tributary start → first ApiVersions answer: median ${median(proc).toFixed(1)} ms (min ${Math.min(...proc).toFixed(1)}, ${runs} runs)`,
)
console.log(
  `startBroker() in-process → first answer:     median ${median(inproc).toFixed(1)} ms (min ${Math.min(...inproc).toFixed(1)}, ${runs} runs)`,
)
