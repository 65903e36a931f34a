// The body of `tributary produce TOPIC` (options and help in ../produce.ts).
//
// Streaming with bounded memory: the input is read chunk by chunk, split into records
// (lines.ts) and handed to the producer (src/client/producer.ts); once the producer holds
// BUFFER_MEMORY_BYTES unacknowledged, reading pauses until acknowledgements free room, so memory
// stays flat whatever the size of the input (a 300 MB file: about 150 MB RSS, mostly Node itself;
// test/unit/cli/produce-run.test.ts checks that no chunk of the input outlives its records).
// 8 MB holds many batches per partition while one is in flight. A single record may not exceed
// MAX_RECORD_BYTES (Kafka's default socket.request.max.bytes: no broker would take it anyway).
//
// Outcomes: every record read is reported once, stored or failed. A record the broker refuses on
// its own (MESSAGE_TOO_LARGE, INVALID_RECORD, …) is counted and named by its line number, and
// production goes on; any other failure (after the producer's retries) stops the reading, and what
// was read is still sent. Interrupted (SIGINT/SIGTERM), reading stops, everything read — a last
// line without its delimiter included — is sent and acknowledged, and the summary says it was
// interrupted; the exit code is 0 unless something failed. A second signal exits 1 at once
// (../produce.ts prints what was read and not acknowledged).
import { fstatSync } from 'node:fs'
import { open } from 'node:fs/promises'
import type { KafkaClient } from '../../client/client.js'
import { ClientError } from '../../client/errors.js'
import { type DeliveryReport, Producer, type ProducerRecord, type RecordHeader } from '../../client/producer.js'
import { type ConnectionOptions, connect, keyValues, ToolError, type ToolIo, UsageError } from '../common.js'
import { codecByName } from '../../protocol/records/compression.js'
import { LineSplitter, LineTooLongError, parseEscapes, splitKey } from './lines.js'
import { formatBytes, type ProgressMode, startProgress } from './progress.js'

export const MAX_RECORD_BYTES = 100 * 1024 * 1024
export const BUFFER_MEMORY_BYTES = 8 * 1024 * 1024
/** Failed records named one by one in the summary; the rest are counted. */
const MAX_NAMED_FAILURES = 10
/** Broker errors about one record (or batch), not about the topic or the connection. */
const RECORD_ERRORS = new Set(['MESSAGE_TOO_LARGE', 'RECORD_LIST_TOO_LARGE', 'INVALID_RECORD', 'CORRUPT_MESSAGE', 'INVALID_TIMESTAMP'])

export interface ProduceCliOptions extends ConnectionOptions {
  file?: string
  delimiter: string
  keySeparator?: string
  header: string[]
  partition?: number
  acks: number
  compression: string
  lingerMs: number
  batchSize: number
  deliveryTimeoutMs: number
  progress: boolean
  json: boolean
}

/** What a second signal reports (shared with ../produce.ts). */
export interface ProduceState {
  read: number
  acked: number
  failed: number
}

interface LineRecord extends ProducerRecord {
  line: number
}

interface Failure {
  line: number
  error: ClientError
}

interface Input {
  stream: NodeJS.ReadableStream
  /** Known for regular files. */
  sizeBytes: number | undefined
  /** stdin is a terminal someone types into. */
  interactive: boolean
}

export async function runProduce(topic: string, o: ProduceCliOptions, io: ToolIo, state: ProduceState): Promise<number> {
  const delimiter = parseEscapes(o.delimiter, '--delimiter')
  const keySeparator = o.keySeparator === undefined ? null : parseEscapes(o.keySeparator, '--key-separator')
  const headers: RecordHeader[] = keyValues(o.header, '--header').map(([key, value]) => ({ key, value: Buffer.from(value, 'utf8') }))
  const unit = delimiter.equals(Buffer.from('\n')) ? 'line' : 'record'
  const input = await openInput(o.file, io)
  const stopper = new Stopper()
  let interrupted = false
  io.onStop(() => {
    interrupted = true
    io.stderr(`tributary produce: interrupted; sending the ${state.read} records read (Ctrl-C again to exit at once)\n`)
    stopper.stop()
  })
  let client: KafkaClient
  try {
    client = await connect(o)
  } catch (err) {
    destroy(input.stream)
    throw err
  }
  let producer: Producer<LineRecord> | undefined
  try {
    const failures: Failure[] = []
    let fatal: Failure | undefined
    let ackedBytes = 0
    const partitions = new Set<number>()
    const onDelivery = (r: DeliveryReport<LineRecord>) => {
      if (r.error === null) {
        state.acked += r.records.length
        for (const rec of r.records) ackedBytes += (rec.key?.length ?? 0) + (rec.value?.length ?? 0)
        partitions.add(r.partition)
        return
      }
      state.failed += r.records.length
      for (const rec of r.records) if (failures.length < MAX_NAMED_FAILURES) failures.push({ line: rec.line, error: r.error })
      if (!RECORD_ERRORS.has(r.error.code) && !fatal) {
        fatal = { line: r.records[0]!.line, error: r.error }
        stopper.stop()
      }
    }
    producer = await createProducer(client, topic, o, onDelivery)
    const p = producer
    if (input.interactive) io.stderr(`reading records from stdin, one per ${unit}; end with Ctrl-D\n`)

    let inputBytes = 0
    const mode: ProgressMode = io.isTty && !input.interactive ? 'bar' : o.progress ? 'plain' : 'off'
    const stopProgress = startProgress(io, mode, input.sizeBytes, () => ({ read: state.read, inputBytes, acked: state.acked }))
    const startedAt = performance.now()
    const send = (line: Buffer) => {
      const { key, value } = splitKey(line, keySeparator)
      const record: LineRecord = { key, value, headers, line: ++state.read }
      if (o.partition !== undefined) record.partition = o.partition
      p.send(record)
    }
    const splitter = new LineSplitter(delimiter, MAX_RECORD_BYTES)
    try {
      const iterator = (input.stream as AsyncIterable<Buffer | string>)[Symbol.asyncIterator]()
      while (!stopper.stopped) {
        const r = await stopper.race(iterator.next())
        if (r === 'stop') break
        if (r.done) break
        const chunk = typeof r.value === 'string' ? Buffer.from(r.value, 'utf8') : r.value
        inputBytes += chunk.length
        for (const line of splitter.push(chunk)) send(line)
        if (p.isFull) await stopper.race(p.waitForSpace())
      }
      if (!fatal) {
        const last = splitter.end()
        if (last) send(last)
      }
    } catch (err) {
      if (!(err instanceof LineTooLongError)) throw err
      state.failed++
      fatal = {
        line: err.line,
        error: new ClientError('MESSAGE_TOO_LARGE', `no delimiter within ${MAX_RECORD_BYTES} bytes: longer than any broker accepts`),
      }
      failures.push(fatal)
    } finally {
      destroy(input.stream)
    }
    await p.flush()
    stopProgress()
    const elapsedMs = performance.now() - startedAt

    const summary = {
      topic,
      records: state.acked,
      bytes: ackedBytes,
      partitions: [...partitions].sort((a, b) => a - b),
      elapsedMs: Math.round(elapsedMs),
      recordsPerSec: elapsedMs > 0 ? Math.round((state.acked * 1000) / elapsedMs) : 0,
      mbPerSec: elapsedMs > 0 ? Number((ackedBytes / 1024 / 1024 / (elapsedMs / 1000)).toFixed(3)) : 0,
      read: state.read,
      failed: state.failed,
      interrupted,
      acks: o.acks,
      failures: failures.map((f) => ({ line: f.line, error: f.error.code, message: f.error.detail })),
    }
    if (o.json) io.stdout(`${JSON.stringify(summary)}\n`)
    else io.stderr(summaryText(summary, unit))
    if (fatal || state.failed > 0) throw failureError(topic, state, failures, fatal, unit)
    return 0
  } finally {
    producer?.close()
    await client.close()
    destroy(input.stream)
  }
}

function destroy(stream: NodeJS.ReadableStream): void {
  ;(stream as { destroy?: () => void }).destroy?.()
}

/**
 * Lets a wait be cut short by stop(). Not Promise.race against one long-lived "stopped" promise:
 * every race would leave a reaction on it holding the value it raced (a chunk of the input), so a
 * long input would stay in memory to the end.
 */
class Stopper {
  stopped = false
  private wake: (() => void) | null = null

  stop(): void {
    this.stopped = true
    this.wake?.()
  }

  /** p's value, or 'stop' as soon as stop() is called; one race at a time. */
  race<T>(p: Promise<T>): Promise<T | 'stop'> {
    if (this.stopped) {
      p.catch(() => {}) // abandoned
      return Promise.resolve('stop')
    }
    return new Promise<T | 'stop'>((resolve, reject) => {
      this.wake = () => resolve('stop')
      p.then(
        (v) => {
          this.wake = null
          resolve(v)
        },
        (err: unknown) => {
          this.wake = null
          reject(err)
        },
      )
    })
  }
}

async function openInput(file: string | undefined, io: ToolIo): Promise<Input> {
  if (file === undefined || file === '-') {
    if (!io.stdin) throw new UsageError('no input: give --file PATH')
    const interactive = (io.stdin as { isTTY?: boolean }).isTTY === true
    return { stream: io.stdin, sizeBytes: stdinSize(io.stdin), interactive }
  }
  let handle: Awaited<ReturnType<typeof open>>
  try {
    handle = await open(file, 'r')
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code
    const why =
      code === 'ENOENT' ? 'does not exist' : code === 'EACCES' ? 'is not readable' : `cannot be opened (${(err as Error).message})`
    throw new ToolError(`file '${file}' ${why}`, 'check the path given to --file')
  }
  const st = await handle.stat()
  if (st.isDirectory()) {
    await handle.close()
    throw new ToolError(`'${file}' is a directory`, 'give --file a file')
  }
  return { stream: handle.createReadStream(), sizeBytes: st.isFile() ? st.size : undefined, interactive: false }
}

/** The size of stdin when it is redirected from a regular file (`< file`). */
function stdinSize(stream: NodeJS.ReadableStream): number | undefined {
  const fd = (stream as { fd?: unknown }).fd
  if (typeof fd !== 'number') return undefined
  try {
    const st = fstatSync(fd)
    return st.isFile() ? st.size : undefined
  } catch {
    return undefined
  }
}

async function createProducer(
  client: KafkaClient,
  topic: string,
  o: ProduceCliOptions,
  onDelivery: (r: DeliveryReport<LineRecord>) => void,
): Promise<Producer<LineRecord>> {
  let producer: Producer<LineRecord>
  try {
    producer = await Producer.create<LineRecord>(client, {
      topic,
      acks: o.acks,
      batchSizeBytes: o.batchSize,
      lingerMs: o.lingerMs,
      compression: codecByName(o.compression) ?? 0, // the option parser admits known names only
      bufferMemoryBytes: BUFFER_MEMORY_BYTES,
      deliveryTimeoutMs: o.deliveryTimeoutMs,
      onDelivery,
    })
  } catch (err) {
    if (err instanceof ClientError && err.code === 'UNKNOWN_TOPIC_OR_PARTITION') {
      throw new ToolError(`topic '${topic}' does not exist`, `create it with: tributary topic create ${topic}`)
    }
    if (err instanceof ClientError && err.code === 'INVALID_TOPIC_EXCEPTION') {
      throw new ToolError(
        `'${topic}' is not a valid topic name`,
        "topic names are 1 to 249 characters: letters, digits, '.', '_' and '-' (and not '.' or '..')",
      )
    }
    throw err
  }
  if (o.partition !== undefined && o.partition >= producer.partitionCount) {
    producer.close()
    const n = producer.partitionCount
    throw new ToolError(
      `topic '${topic}' has no partition ${o.partition}`,
      `it has ${n} partition${n === 1 ? '' : 's'}: give --partition 0..${n - 1}, or leave it out`,
    )
  }
  return producer
}

interface SummaryFields {
  topic: string
  records: number
  bytes: number
  partitions: number[]
  elapsedMs: number
  recordsPerSec: number
  mbPerSec: number
  read: number
  failed: number
  interrupted: boolean
  acks: number
}

/** The human summary (stderr), e.g. `produced 3 records (42 B) to 'events' partitions 0, 2 in 0.05 s (60 records/s, 0.001 MB/s)`. */
export function summaryText(s: SummaryFields, unit: string): string {
  const verb = s.acks === 0 ? 'sent (acks=0, not acknowledged)' : 'produced'
  const where =
    s.partitions.length === 0 ? `'${s.topic}'` : `'${s.topic}' partition${s.partitions.length === 1 ? '' : 's'} ${s.partitions.join(', ')}`
  let text =
    `${verb} ${s.records} record${s.records === 1 ? '' : 's'} (${formatBytes(s.bytes)}) to ${where} in ${(s.elapsedMs / 1000).toFixed(2)} s ` +
    `(${s.recordsPerSec} records/s, ${s.mbPerSec} MB/s)\n`
  if (s.interrupted) text += `interrupted: stopped reading after ${unit} ${s.read}; every record read was sent\n`
  if (s.failed > 0) text += `${s.failed} of ${s.read} records were not stored\n`
  return text
}

function failureError(topic: string, state: ProduceState, failures: Failure[], fatal: Failure | undefined, unit: string): ToolError {
  const first = fatal ?? failures[0]!
  const named = failures
    .filter((f) => f.line !== first.line)
    .map((f) => `${unit} ${f.line}`)
    .join(', ')
  const more = state.failed > failures.length ? ` and ${state.failed - failures.length} more` : ''
  const message =
    `${unit} ${first.line}: ${first.error.message}` +
    (state.failed > 1 || named !== ''
      ? `; ${state.failed} record${state.failed === 1 ? '' : 's'} not stored${named ? ` (${named}${more})` : ''}`
      : '')
  return new ToolError(message, hintFor(first.error, topic))
}

function hintFor(err: ClientError, topic: string): string | undefined {
  switch (err.code) {
    case 'MESSAGE_TOO_LARGE':
    case 'RECORD_LIST_TOO_LARGE':
      return "the record is larger than the topic accepts (max.message.bytes, or the broker's message.max.bytes): raise that limit or split the record"
    case 'UNKNOWN_TOPIC_OR_PARTITION':
      return `was the topic deleted? Create it with: tributary topic create ${topic}`
    case 'NETWORK_EXCEPTION':
      return 'the broker could not be reached; check that it is running and --bootstrap-server'
    case 'REQUEST_TIMED_OUT':
      return 'the broker did not answer in time; raise --delivery-timeout-ms or --request-timeout-ms, or check the broker'
    case 'NOT_ENOUGH_REPLICAS':
    case 'NOT_ENOUGH_REPLICAS_AFTER_APPEND':
      return 'fewer in-sync replicas than min.insync.replicas: bring replicas back, or use --acks 1'
    case 'TOPIC_AUTHORIZATION_FAILED':
      return `this client may not write to '${topic}'`
    default:
      return undefined
  }
}
