// A continuous acks=all producer for cluster tests: it sends numbered values ("v-<n>", n = 0, 1, 2, …)
// one small batch after another — each batch to one partition, the next batch only after the
// previous one was acknowledged or failed — and records every acknowledged (partition, offset,
// value) and every failure, so a test can kill, pause or restart brokers meanwhile and then check
// that each acknowledged value is in the log at its offset (docs/architecture.md §3 Durability).
//
// Two clients:
//   kafkajs     in process; acks -1, idempotence off, one request in flight, retries with backoff
//               through leader changes (kafkajs refreshes its metadata after NOT_LEADER_OR_FOLLOWER
//               and connection errors before retrying).
//   librdkafka  test/interop/python/acked-producer.py through confluent-kafka, one JSON line per
//               delivery report. (kcat reports a delivery's partition and offset but not which
//               message it was, so it cannot tell which values were acknowledged.)
// Without idempotence a retried batch may be written twice; `acked` holds the offsets the
// broker finally reported.
import assert from 'node:assert/strict'
import { type ChildProcess, spawn } from 'node:child_process'
import { fileURLToPath } from 'node:url'
import { Kafka, logLevel } from 'kafkajs'
import { sleep, waitFor } from './clients.js'

/** dist/test/helpers/acked-producer.js → test/interop/python/acked-producer.py (the source). */
const PY_SCRIPT = fileURLToPath(new URL('../../../test/interop/python/acked-producer.py', import.meta.url))
const STOP_TIMEOUT_MS = 200_000

export interface AckedRecord {
  partition: number
  offset: number
  value: string
}

export interface ProduceFailure {
  partition: number
  values: string[]
  error: string
}

export interface ProducerResult {
  acked: AckedRecord[]
  errors: ProduceFailure[]
  /** How many values were handed to the client (librdkafka: as its final line says). */
  sent: number
}

export interface StartProducerOptions {
  /** Comma-separated host:port list (Cluster.bootstrap()). */
  bootstrap: string
  topic: string
  client: 'kafkajs' | 'librdkafka'
  /** Values per batch (per send). Default 10. */
  batchSize?: number
  /** Send every batch to this partition; by default batch k goes to partition k % partition count. */
  partition?: number
  /** Stop by itself after this many values. */
  maxValues?: number
  /** kafkajs: retries per send (default 40, backoff 100 ms doubling to 2 s). */
  retries?: number
  /** librdkafka: properties overriding the script's defaults. */
  config?: Record<string, string | number | boolean>
}

export interface ContinuousProducer {
  /** What was acknowledged and what failed so far (librdkafka: sent = reports so far, until stop). */
  progress(): { acked: number; errors: number; sent: number }
  /** Resolves once at least n values were acknowledged (rejects after timeoutMs). */
  waitForAcked(n: number, timeoutMs?: number): Promise<void>
  /** Sends no new values, waits for the ones in flight, and reports everything. */
  stop(): Promise<ProducerResult>
  /** Gives up at once: closes the client (kills the script); what is in flight stays unreported. */
  abort(): Promise<void>
}

/** Producers not stopped yet: Cluster.close() aborts them, so none outlives its brokers. */
const running = new Set<ContinuousProducer>()
const children = new Set<ChildProcess>()
let exitHookInstalled = false

function installExitHook(): void {
  if (exitHookInstalled) return
  exitHookInstalled = true
  process.on('exit', () => {
    for (const c of children) c.kill('SIGKILL')
  })
}

/** Aborts every producer that was started and not stopped. */
export async function abortAllProducers(): Promise<void> {
  await Promise.all([...running].map((p) => p.abort()))
}

export function startProducer(opts: StartProducerOptions): Promise<ContinuousProducer> {
  return opts.client === 'kafkajs' ? startKafkajs(opts) : startLibrdkafka(opts)
}

function describeError(e: unknown): string {
  const err = e as { name?: string; message?: string; type?: string; cause?: unknown }
  let s = `${err?.name ?? 'Error'}: ${err?.message ?? String(e)}${err?.type ? ` (${err.type})` : ''}`
  if (err?.cause) s += ` <- ${describeError(err.cause)}`
  return s
}

function controls(
  acked: AckedRecord[],
  errors: ProduceFailure[],
  sent: () => number,
  finish: () => Promise<void>,
  abort: () => Promise<void>,
): ContinuousProducer {
  const p: ContinuousProducer = {
    progress: () => ({ acked: acked.length, errors: errors.length, sent: sent() }),
    waitForAcked: (n, timeoutMs = 60_000) =>
      waitFor(() => acked.length >= n, `${n} acknowledged values (have ${acked.length}, ${errors.length} errors)`, timeoutMs, 20).then(
        () => undefined,
      ),
    stop: async () => {
      try {
        await finish()
      } finally {
        running.delete(p)
      }
      return { acked: [...acked], errors: [...errors], sent: sent() }
    },
    abort: async () => {
      running.delete(p)
      await abort()
    },
  }
  running.add(p)
  return p
}

async function startKafkajs(opts: StartProducerOptions): Promise<ContinuousProducer> {
  const retry = { retries: opts.retries ?? 40, initialRetryTime: 100, maxRetryTime: 2000, factor: 0.2, multiplier: 2 }
  const kafka = new Kafka({
    clientId: 'acked-producer',
    brokers: opts.bootstrap.split(','),
    logLevel: logLevel.NOTHING,
    connectionTimeout: 3000,
    requestTimeout: 15_000,
    retry,
  })
  const admin = kafka.admin({ retry })
  await admin.connect()
  let partitions: number
  try {
    const md = await admin.fetchTopicMetadata({ topics: [opts.topic] })
    partitions = md.topics[0]!.partitions.length
  } finally {
    await admin.disconnect()
  }
  assert.ok(partitions > 0, `topic ${opts.topic} has no partitions`)
  const producer = kafka.producer({ idempotent: false, maxInFlightRequests: 1, allowAutoTopicCreation: false, retry, metadataMaxAge: 5000 })
  await producer.connect()

  const acked: AckedRecord[] = []
  const errors: ProduceFailure[] = []
  const batchSize = opts.batchSize ?? 10
  let n = 0
  let stopping = false
  const loop = (async () => {
    for (let batch = 0; !stopping && (opts.maxValues === undefined || n < opts.maxValues); batch++) {
      const partition = opts.partition ?? batch % partitions
      const count = opts.maxValues === undefined ? batchSize : Math.min(batchSize, opts.maxValues - n)
      const values = Array.from({ length: count }, (_, i) => `v-${n + i}`)
      n += count
      try {
        const res = await producer.send({
          topic: opts.topic,
          acks: -1,
          timeout: 10_000,
          messages: values.map((value) => ({ value, partition })),
        })
        const meta = res.find((r) => r.partition === partition)
        if (meta?.errorCode !== 0 || meta.baseOffset === undefined) {
          errors.push({ partition, values, error: `unexpected response ${JSON.stringify(res)}` })
          continue
        }
        const base = Number(meta.baseOffset)
        for (const [i, value] of values.entries()) acked.push({ partition, offset: base + i, value })
      } catch (e) {
        errors.push({ partition, values, error: describeError(e) })
        await sleep(100)
      }
    }
  })()
  return controls(
    acked,
    errors,
    () => n,
    async () => {
      stopping = true
      await loop
      await producer.disconnect().catch(() => {})
    },
    async () => {
      // The send in flight fails or ends on its own; the loop sends nothing after it.
      stopping = true
      await producer.disconnect().catch(() => {})
    },
  )
}

interface PyLine {
  ready?: boolean
  partitions?: number
  done?: boolean
  sent?: number
  undelivered?: number
  partition?: number
  offset?: number
  value?: string
  error?: { code: number; name: string; message: string }
}

async function startLibrdkafka(opts: StartProducerOptions): Promise<ContinuousProducer> {
  const pyOpts = {
    batchSize: opts.batchSize ?? 10,
    partition: opts.partition ?? null,
    maxValues: opts.maxValues ?? null,
    config: opts.config ?? {},
  }
  installExitHook()
  const child = spawn('python3', [PY_SCRIPT, opts.bootstrap, opts.topic, JSON.stringify(pyOpts)], { stdio: ['pipe', 'pipe', 'pipe'] })
  children.add(child)
  // The script must not keep the test process alive (a failed test that never stops it); every
  // wait on it below holds a timer of its own.
  child.unref()
  for (const s of [child.stdin, child.stdout, child.stderr]) (s as unknown as { unref(): void }).unref()
  const acked: AckedRecord[] = []
  const errors: ProduceFailure[] = []
  let sent = 0
  let stderr = ''
  let buffered = ''
  let done: PyLine | undefined
  let ready: PyLine | undefined
  child.stderr.setEncoding('utf8').on('data', (s: string) => {
    stderr = (stderr + s).slice(-64 * 1024)
  })
  child.stdout.setEncoding('utf8').on('data', (s: string) => {
    buffered += s
    let nl = buffered.indexOf('\n')
    while (nl >= 0) {
      const line = buffered.slice(0, nl)
      buffered = buffered.slice(nl + 1)
      nl = buffered.indexOf('\n')
      if (line.trim() === '') continue
      const m = JSON.parse(line) as PyLine
      if (m.ready) ready = m
      else if (m.done) {
        done = m
        sent = m.sent ?? sent
      } else if (m.error)
        errors.push({ partition: m.partition ?? -1, values: [m.value ?? ''], error: `${m.error.name}: ${m.error.message}` })
      else acked.push({ partition: m.partition!, offset: m.offset!, value: m.value! })
    }
  })
  const exited = new Promise<number | null>((resolve) =>
    child.once('exit', (code) => {
      children.delete(child)
      resolve(code)
    }),
  )
  let exitCode: number | null | undefined
  void exited.then((c) => {
    exitCode = c
  })
  const readyBy = Date.now() + 60_000
  while (!ready) {
    if (exitCode !== undefined) throw new Error(`acked-producer.py exited ${exitCode} before it was ready; stderr:\n${stderr}`)
    if (Date.now() > readyBy) {
      child.kill('SIGKILL')
      throw new Error(`acked-producer.py did not get the metadata of ${opts.topic} within 60 s; stderr:\n${stderr}`)
    }
    await sleep(50)
  }
  if (!ready.partitions) throw new Error(`acked-producer.py found no partitions of ${opts.topic}`)
  const values = () => (done ? sent : acked.length + errors.length)
  const finish = async () => {
    child.stdin.end()
    const timer = setTimeout(() => child.kill('SIGKILL'), STOP_TIMEOUT_MS)
    try {
      const code = await exited
      // 'exit' may come before the last stdout chunk; wait for the stream's end.
      if (!child.stdout.readableEnded) await new Promise((r) => child.stdout.once('end', r))
      assert.equal(code, 0, `acked-producer.py exited ${code}; stderr:\n${stderr}`)
      assert.ok(done, `acked-producer.py printed no final line; stderr:\n${stderr}`)
    } finally {
      clearTimeout(timer)
    }
  }
  const abort = async () => {
    if (exitCode === undefined) child.kill('SIGKILL')
    const timer = setTimeout(() => {}, 10_000)
    await exited
    clearTimeout(timer)
  }
  return controls(acked, errors, values, finish, abort)
}
