// Produce and consume throughput through librdkafka (kcat) against a broker process.
//   node dist/bench/kcat-throughput.js [messages=1000000] [bytes=100] [partitions=1]
// Produces `messages` records of `bytes` bytes from a file with `kcat -P -l`, then consumes them
// all from the beginning with `kcat -C -e`, and prints records/s and MB/s for each.
import { spawn } from 'node:child_process'
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { startBrokerProcess } from '../test/helpers/broker-process.js'

const messages = Number(process.argv[2] ?? 1_000_000)
const size = Number(process.argv[3] ?? 100)
const partitions = Number(process.argv[4] ?? 1)

function run(cmd: string, args: string[]): Promise<{ ms: number; stdoutBytes: number; stderr: string }> {
  return new Promise((resolve, reject) => {
    const t0 = performance.now()
    const child = spawn(cmd, args, { stdio: ['ignore', 'pipe', 'pipe'] })
    let stdoutBytes = 0
    let stderr = ''
    child.stdout.on('data', (b: Buffer) => (stdoutBytes += b.length))
    child.stderr.on('data', (b: Buffer) => (stderr += b.toString()))
    child.on('error', reject)
    child.on('exit', (code) => {
      if (code !== 0) reject(new Error(`${cmd} exited ${code}: ${stderr}`))
      else resolve({ ms: performance.now() - t0, stdoutBytes, stderr })
    })
  })
}

const dir = mkdtempSync(join(tmpdir(), 'tributary-kcat-bench-'))
const file = join(dir, 'input.txt')
const line = `${'x'.repeat(size - 1)}\n`
writeFileSync(file, line.repeat(messages))

const broker = await startBrokerProcess({ overrides: { 'num.partitions': String(partitions) } })
try {
  const common = ['-b', broker.bootstrap, '-t', 'bench', '-q']
  const produce = await run('kcat', [
    '-P',
    ...common,
    '-l',
    '-X',
    'linger.ms=5',
    '-X',
    'batch.num.messages=10000',
    '-X',
    'queue.buffering.max.messages=1000000',
    '-X',
    'acks=1',
    file,
  ])
  const consume = await run('kcat', ['-C', ...common, '-o', 'beginning', '-e', '-f', '%s\n', '-X', 'fetch.max.bytes=52428800'])
  const mb = (messages * size) / 1e6
  const fmt = (label: string, ms: number) =>
    `${label}: ${messages} × ${size} B in ${(ms / 1000).toFixed(2)} s = ${Math.round(messages / (ms / 1000)).toLocaleString('en')} records/s, ${(mb / (ms / 1000)).toFixed(1)} MB/s`
  console.log(fmt('produce (kcat -P, acks=1)', produce.ms))
  console.log(fmt('consume (kcat -C)', consume.ms))
  if (consume.stdoutBytes !== messages * size) throw new Error(`consumed ${consume.stdoutBytes} bytes, expected ${messages * size}`)
} finally {
  await broker.stop()
  await broker.cleanup()
  rmSync(dir, { recursive: true, force: true })
}
