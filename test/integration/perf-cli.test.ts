// `tributary perf produce | consume | e2e` as subprocesses against a broker process: counts must
// add up exactly (consume reads what produce wrote; ListOffsets agrees), the summary fields must
// exist and be consistent (p50 ≤ p95 ≤ p99 ≤ p99.9 ≤ max), and exit codes must be 0 / 1 / 2.
// No timing thresholds: this machine's speed is the bench's business, not the tests'.
import assert from 'node:assert/strict'
import { spawn } from 'node:child_process'
import { after, before, describe, it } from 'node:test'
import { listOffsets, OffsetSpec } from '../../src/client/admin.js'
import { KafkaClient } from '../../src/client/client.js'
import { BROKER_MAIN, type BrokerProcess, startBrokerProcess, stopAndCheck } from '../helpers/broker-process.js'

interface Run {
  code: number | null
  stdout: string
  stderr: string
}

function perf(args: string[], env: Record<string, string> = {}): Promise<Run> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [BROKER_MAIN, 'perf', ...args], {
      stdio: ['ignore', 'pipe', 'pipe'],
      env: { ...process.env, ...env },
    })
    let stdout = ''
    let stderr = ''
    child.stdout.setEncoding('utf8').on('data', (s: string) => (stdout += s))
    child.stderr.setEncoding('utf8').on('data', (s: string) => (stderr += s))
    const timer = setTimeout(() => child.kill('SIGKILL'), 180_000)
    child.on('error', reject)
    child.on('close', (code) => {
      clearTimeout(timer)
      resolve({ code, stdout, stderr })
    })
  })
}

interface Latency {
  avg: number
  max: number
  p50: number
  p95: number
  p99: number
  p999: number
}

interface Summary {
  mode: string
  records: number
  bytes: number
  elapsedMs: number
  recordsPerSec: number
  mbPerSec: number
  latencyMs: Latency
  [key: string]: unknown
}

async function perfJson(args: string[], env?: Record<string, string>): Promise<Summary> {
  const r = await perf([...args, '--json'], env)
  assert.equal(r.code, 0, `perf ${args.join(' ')} failed:\n${r.stderr}`)
  const lines = r.stdout.trim().split('\n')
  assert.equal(lines.length, 1, `one JSON line on stdout, got:\n${r.stdout}`)
  return JSON.parse(lines[0]!) as Summary
}

function assertSaneLatency(l: Latency, what: string): void {
  for (const k of ['avg', 'max', 'p50', 'p95', 'p99', 'p999'] as const) {
    assert.equal(typeof l[k], 'number', `${what}.${k}`)
    assert.ok(Number.isFinite(l[k]) && l[k] >= 0, `${what}.${k} = ${l[k]}`)
  }
  assert.ok(l.p50 <= l.p95 && l.p95 <= l.p99 && l.p99 <= l.p999 && l.p999 <= l.max, `${what} percentiles in order: ${JSON.stringify(l)}`)
  assert.ok(l.avg <= l.max, `${what} avg ≤ max`)
}

function assertSaneSummary(s: Summary, mode: string, records: number): void {
  assert.equal(s.mode, mode)
  assert.equal(s.records, records)
  assert.ok(s.bytes > 0, 'bytes')
  assert.ok(s.elapsedMs > 0, 'elapsedMs')
  assert.ok(s.recordsPerSec > 0 && Number.isFinite(s.recordsPerSec), 'recordsPerSec')
  assert.ok(s.mbPerSec > 0 && Number.isFinite(s.mbPerSec), 'mbPerSec')
  assertSaneLatency(s.latencyMs, `${mode} latencyMs`)
}

describe('tributary perf', () => {
  let broker: BrokerProcess
  let client: KafkaClient
  const latestTotal = async (topic: string) => {
    const offsets = await listOffsets(client, topic, null, OffsetSpec.Latest)
    return [...offsets.values()].reduce((a, b) => a + b, 0)
  }

  before(async () => {
    broker = await startBrokerProcess()
    client = await KafkaClient.connect({ bootstrap: [broker.bootstrap] })
  })
  after(async () => {
    await client?.close()
    await stopAndCheck(broker)
  })

  it('produce writes exactly --num-records records, spread over the partitions it created', async () => {
    const s = await perfJson([
      'produce',
      '--bootstrap-server',
      broker.bootstrap,
      '--topic',
      'perf-it',
      '--num-records',
      '200000',
      '--record-size',
      '100',
      '--partitions',
      '8',
      '--acks',
      '1',
    ])
    assertSaneSummary(s, 'produce', 200_000)
    assert.equal(s.bytes, 200_000 * 100)
    assert.equal(s.partitions, 8)
    assert.equal(s.acks, 1)
    const offsets = await listOffsets(client, 'perf-it', null, OffsetSpec.Latest)
    assert.equal(offsets.size, 8)
    assert.equal(
      [...offsets.values()].reduce((a, b) => a + b, 0),
      200_000,
    )
    for (const [p, o] of offsets) assert.ok(o > 0, `partition ${p} got records`)
  })

  it('consume reads exactly what was produced, and stops at --num-records', async () => {
    const all = await perfJson(['consume', '--bootstrap-server', broker.bootstrap, '--topic', 'perf-it'])
    assertSaneSummary(all, 'consume', 200_000)
    assert.equal(all.partitions, 8)
    const some = await perfJson(['consume', '--topic', 'perf-it', '--num-records', '1234'], { TRIBUTARY_BOOTSTRAP: broker.bootstrap })
    assertSaneSummary(some, 'consume', 1234)
  })

  it('produce --raw with acks=all and several producers writes exactly --num-records records', async () => {
    const s = await perfJson([
      'produce',
      '--bootstrap-server',
      broker.bootstrap,
      '--topic',
      'perf-raw',
      '--num-records',
      '50001',
      '--partitions',
      '3',
      '--acks',
      'all',
      '--raw',
      '--producers',
      '2',
      '--batch-size',
      '4096',
    ])
    assertSaneSummary(s, 'produce', 50_001)
    assert.equal(s.raw, true)
    assert.equal(await latestTotal('perf-raw'), 50_001)
  })

  it('e2e measures produce-to-consume latency of every record at a fixed rate', async () => {
    const s = await perfJson([
      'e2e',
      '--bootstrap-server',
      broker.bootstrap,
      '--topic',
      'perf-e2e',
      '--num-records',
      '5000',
      '--throughput',
      '2000',
    ])
    assertSaneSummary(s, 'e2e', 5000)
    assert.equal(s.recordsSent, 5000)
    assertSaneLatency(s.produceLatencyMs as Latency, 'e2e produceLatencyMs')
    assert.equal(await latestTotal('perf-e2e'), 5000)
  })

  it('prints progress lines on stderr and a summary line on stdout; --duration ends the run', async () => {
    const r = await perf([
      'produce',
      '--bootstrap-server',
      broker.bootstrap,
      '--topic',
      'perf-duration',
      '--duration',
      '2.5',
      '--throughput',
      '20000',
    ])
    assert.equal(r.code, 0, r.stderr)
    assert.match(r.stderr, /^produce: \d+ records sent, [\d.]+ records\/s \([\d.]+ MB\/s\), latency avg [\d.]+ ms, max [\d.]+ ms$/m)
    const m =
      /^produce: (\d+) records sent in [\d.]+ s, [\d.]+ records\/s \([\d.]+ MB\/s\), latency avg [\d.]+ ms, max [\d.]+ ms, p50 [\d.]+ ms, p95 [\d.]+ ms, p99 [\d.]+ ms, p99\.9 [\d.]+ ms$/.exec(
        r.stdout.trim(),
      )
    assert.ok(m, `summary line:\n${r.stdout}`)
    const sent = Number(m[1])
    assert.ok(sent > 0)
    assert.equal(await latestTotal('perf-duration'), sent)
  })

  it('exits 2 on usage errors and 1 on failures, with a message', async () => {
    const usage = [
      ['produce', '--topic', 't'], // neither --num-records nor --duration
      ['produce', '--topic', 't', '--num-records', '10', '--compression', 'gzip'],
      ['produce', '--topic', 't', '--num-records', 'ten'],
      ['produce', '--num-records', '10'], // no --topic
      ['e2e', '--topic', 't', '--num-records', '10', '--record-size', '4'],
      ['consume', '--topic', 't', '--fetch-size', '0'],
    ]
    for (const args of usage) {
      const r = await perf([...args, '--bootstrap-server', broker.bootstrap])
      assert.equal(r.code, 2, `${args.join(' ')}: ${r.stderr}`)
      assert.notEqual(r.stderr.trim(), '')
    }
    const gz = await perf(['produce', '--topic', 't', '--num-records', '10', '--compression', 'gzip'])
    assert.match(gz.stderr, /gzip is not supported yet/)

    const missing = await perf(['consume', '--bootstrap-server', broker.bootstrap, '--topic', 'no-such-topic'])
    assert.equal(missing.code, 1)
    assert.match(missing.stderr, /UNKNOWN_TOPIC_OR_PARTITION/)
    const short = await perf([
      'consume',
      '--bootstrap-server',
      broker.bootstrap,
      '--topic',
      'perf-it',
      '--num-records',
      '300000',
      '--timeout',
      '1000',
    ])
    assert.equal(short.code, 1, 'asked for more records than the topic holds')
    assert.match(short.stderr, /no new records for 1000 ms \(200000 consumed so far\)/)
    const unreachable = await perf(['consume', '--bootstrap-server', '127.0.0.1:1', '--topic', 'x'])
    assert.equal(unreachable.code, 1)
    assert.match(unreachable.stderr, /NETWORK_EXCEPTION/)
  })
})
