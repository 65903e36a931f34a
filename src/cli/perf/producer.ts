// The perf producer: one producer loop (a Kafka producer's accumulator and sender in one object),
// used by `perf produce` (one per --producers) and `perf e2e`.
//
// Records are not objects. The generator only counts: records go to the open batch of the current
// ("sticky") partition, which moves on after a full batch's worth of records — round-robin at
// batch granularity, as Kafka's default partitioner spreads records without keys. A batch is
// closed (header and CRC written, see batch-template.ts) when it is full or --linger-ms after its
// first record, or at once with linger 0 when a request slot is free. The sender keeps up to
// maxInFlight Produce requests per broker connection, each carrying at most one batch per
// partition led by that broker (as Kafka's Sender drains), up to 1 MiB.
//
// Rate: unthrottled, full batches are made on demand whenever a request slot frees up, so the
// producer runs as fast as the broker acknowledges. Throttled, a timer adds the records due since
// the start (rate × elapsed), catching up after a stall the way Kafka's ThroughputThrottler does;
// no more than maxBufferedBytes (Kafka's buffer.memory) are held unacknowledged.
//
// Latency: acknowledgement time minus each record's time — when it was generated, unthrottled; its
// slot in the fixed-rate schedule, throttled (see append) — recorded per group of records added
// together, so linger and queueing count, as in Kafka's ProducerPerformance (from send()).
//
// --raw: one full batch per partition is built once and the same bytes are sent again and again —
// the broker's ceiling, without the producer's copy and CRC.
import type { Connection } from '../../client/connection.js'
import { ClientError, throwIfError } from '../../client/errors.js'
import { ProduceRequest, type ProduceRequestData, ProduceResponse } from '../../protocol/messages/00-produce.js'
import type { Encodable } from '../../protocol/schema.js'
import { type BatchTemplate, finishBatch, newBatchBuffer } from './batch-template.js'
import type { Meter } from './stats.js'

const MAX_REQUEST_BYTES = 1024 * 1024
/** The generator names its topic; Produce v13 would need the topic's id instead (KIP-516). */
const NAMED_TOPICS_MAX_VERSION = 12

export interface ProducerTarget {
  /** Partition index and the connection to its leader. */
  partition: number
  leader: number
}

export interface PerfProducerOptions {
  topic: string
  partitions: ProducerTarget[]
  /** A connection per leader node id. */
  connections: Map<number, Connection>
  template: BatchTemplate
  acks: number
  maxInFlight: number
  lingerMs: number
  /** Records per second; ≤ 0 is unthrottled. */
  throughput: number
  /** Records to send (Infinity: until durationMs or stop()). */
  numRecords: number
  durationMs: number
  raw: boolean
  /** Write each record's generation time (performance.now(), float64 ms) into its first 8 value bytes. */
  stampValues: boolean
  requestTimeoutMs: number
  /** Kafka's buffer.memory: unacknowledged bytes above which a throttled generator waits. */
  maxBufferedBytes?: number
  meter: Meter
}

interface OpenBatch {
  buf: Buffer | null
  count: number
  firstAt: number
  /** Pairs of (generation time ms, record count). */
  stamps: number[]
}

interface ReadyBatch {
  partition: number
  bytes: Buffer
  /** The whole buffer behind bytes, returned to the pool once acknowledged (null: --raw's batch). */
  buf: Buffer | null
  count: number
  stamps: number[]
}

interface PartitionState {
  index: number
  /** Position in PerfProducer.partitions (the sticky cursor's unit). */
  slot: number
  open: OpenBatch | null
  ready: ReadyBatch[]
  /** --raw: the prebuilt full batch. */
  rawBatch: Buffer | null
}

interface BrokerState {
  nodeId: number
  conn: Connection
  version: number
  inFlight: number
  partitions: PartitionState[]
  /** Partition to start the next request's drain from, for fairness across requests. */
  next: number
}

export class PerfProducer {
  private readonly opts: PerfProducerOptions
  private readonly partitions: PartitionState[]
  private readonly brokers: BrokerState[]
  private readonly perBatch: number
  private readonly maxBufferedBytes: number
  private sticky = 0
  /** Records given to the sticky partition since it became the sticky one. */
  private stickyCount = 0
  private generated = 0
  private bufferedBytes = 0
  /** Batch buffers whose requests were acknowledged, for reuse (saves allocating and collecting them). */
  private readonly pool: Buffer[] = []
  private generating = true
  private startedAt = 0
  private timer: NodeJS.Timeout | undefined
  private failed: unknown
  private finished = false
  private resolveRun!: () => void
  private rejectRun!: (err: unknown) => void

  constructor(opts: PerfProducerOptions) {
    this.opts = opts
    this.perBatch = opts.template.recordsPerBatch
    this.maxBufferedBytes = opts.maxBufferedBytes ?? 32 * 1024 * 1024
    this.partitions = opts.partitions.map((p, slot) => ({
      index: p.partition,
      slot,
      open: null,
      ready: [],
      rawBatch: opts.raw ? finishBatch(opts.template, newBatchBuffer(opts.template), this.perBatch, Date.now()) : null,
    }))
    const byNode = new Map<number, BrokerState>()
    opts.partitions.forEach((p, i) => {
      let b = byNode.get(p.leader)
      if (!b) {
        const conn = opts.connections.get(p.leader)
        if (!conn?.versions) throw new ClientError('BROKER_NOT_AVAILABLE', `no connection to node ${p.leader}`)
        b = {
          nodeId: p.leader,
          conn,
          version: conn.versions.pick(ProduceRequest, ProduceResponse, NAMED_TOPICS_MAX_VERSION),
          inFlight: 0,
          partitions: [],
          next: 0,
        }
        byNode.set(p.leader, b)
      }
      b.partitions.push(this.partitions[i]!)
    })
    this.brokers = [...byNode.values()]
  }

  /** Records generated so far. */
  get recordsGenerated(): number {
    return this.generated
  }

  /** Produces until the record count or duration is reached (or stop()) and everything is acknowledged. */
  run(): Promise<void> {
    this.startedAt = performance.now()
    const done = new Promise<void>((resolve, reject) => {
      this.resolveRun = resolve
      this.rejectRun = reject
    })
    if (this.opts.numRecords <= 0) this.generating = false
    if (this.throttled) this.tick()
    else this.drainAll()
    this.checkDone()
    return done
  }

  /** Stops generating; what was generated is still sent, and run() resolves once it is acknowledged. */
  stop(): void {
    if (!this.generating) return
    this.generating = false
    if (this.throttled) this.tick()
    else this.checkDone()
  }

  private get throttled(): boolean {
    return this.opts.throughput > 0
  }

  private get remaining(): number {
    return this.opts.numRecords - this.generated
  }

  // -- generation --------------------------------------------------------------------------

  /** Throttled mode: adds the records due by now, closes lingered batches, sends, and re-arms. */
  private tick(): void {
    this.timer = undefined
    if (this.finished) return
    const now = performance.now()
    if (this.generating) {
      // At the end of a --duration, the records the schedule holds up to that instant, exactly.
      const ended = now - this.startedAt >= this.opts.durationMs
      const elapsedMs = ended ? this.opts.durationMs : now - this.startedAt
      const due = Math.min(this.remaining, Math.floor((this.opts.throughput * elapsedMs) / 1000) - this.generated)
      if (due > 0 && (ended || this.bufferedBytes < this.maxBufferedBytes)) this.generate(due, now)
      if (ended || this.remaining <= 0) this.generating = false
    }
    for (const p of this.partitions) {
      const open = p.open
      if (open && (!this.generating || now - open.firstAt >= this.opts.lingerMs)) this.close(p)
    }
    this.drainAll()
    this.checkDone()
    if (!this.finished && (this.generating || this.partitions.some((p) => p.open))) {
      this.timer = setTimeout(() => this.tick(), this.nextTickDelay(now))
    }
  }

  private nextTickDelay(now: number): number {
    let at = Number.POSITIVE_INFINITY
    if (this.generating) at = this.startedAt + ((this.generated + 1) * 1000) / this.opts.throughput
    for (const p of this.partitions) if (p.open) at = Math.min(at, p.open.firstAt + this.opts.lingerMs)
    return Math.max(0, Math.min(100, at - now))
  }

  /**
   * Throttled mode: adds n records to the sticky partition, moving to the next partition after a
   * full batch's worth of records (as Kafka's built-in partitioner does, KIP-794) — also when
   * linger closed partial batches in between.
   */
  private generate(n: number, now: number): void {
    while (n > 0) {
      const p = this.partitions[this.sticky]!
      const take = this.append(p, Math.min(n, this.perBatch - this.stickyCount), now)
      n -= take
      this.stickyCount += take
      if (this.stickyCount >= this.perBatch) {
        this.sticky = (this.sticky + 1) % this.partitions.length
        this.stickyCount = 0
      }
    }
  }

  /**
   * Adds up to n records to p's open batch (opening one if needed) and closes it when full;
   * returns how many were added. Throttled, each record's time is the time the schedule gives it
   * (start + index / rate), not when the timer got round to it, so a stalled generator shows up
   * as latency instead of hiding it (coordinated omission); unthrottled, it is now.
   */
  private append(p: PartitionState, n: number, now: number): number {
    const { template, stampValues } = this.opts
    let open = p.open
    if (!open) {
      open = p.open = { buf: this.opts.raw ? null : this.takeBuffer(), count: 0, firstAt: now, stamps: [] }
      this.bufferedBytes += template.bytes.length
    }
    const take = Math.min(n, this.perBatch - open.count)
    const interval = this.throttled ? 1000 / this.opts.throughput : 0
    const first = this.throttled ? this.startedAt + this.generated * interval : now
    if (stampValues && open.buf) {
      const offsets = template.valueOffsets
      for (let k = 0; k < take; k++) open.buf.writeDoubleBE(first + k * interval, offsets[open.count + k]!)
    }
    open.stamps.push(first + ((take - 1) * interval) / 2, take)
    open.count += take
    this.generated += take
    if (open.count === this.perBatch) this.close(p)
    return take
  }

  /** Closes a partition's open batch: writes its header and CRC and queues it for sending. */
  private close(p: PartitionState): void {
    const open = p.open
    if (!open) return
    p.open = null
    const { template } = this.opts
    if (p.rawBatch && open.count === this.perBatch) {
      p.ready.push({ partition: p.index, bytes: p.rawBatch, buf: null, count: open.count, stamps: open.stamps })
      return
    }
    const buf = open.buf ?? this.takeBuffer()
    const bytes = finishBatch(template, buf, open.count, Date.now())
    p.ready.push({ partition: p.index, bytes, buf, count: open.count, stamps: open.stamps })
  }

  /** A buffer holding the template's records: a recycled one refilled, or a new copy. */
  private takeBuffer(): Buffer {
    const buf = this.pool.pop()
    if (!buf) return newBatchBuffer(this.opts.template)
    this.opts.template.bytes.copy(buf)
    return buf
  }

  /** Unthrottled mode: gives every partition of the broker a full batch, if records remain. */
  private fillUnthrottled(b: BrokerState): void {
    if (!this.generating) return
    const now = performance.now()
    if (now - this.startedAt >= this.opts.durationMs) {
      this.generating = false
      return
    }
    // Only what the requests in flight and the next one can carry: with many partitions, a full
    // batch for every one of them at once would sit in memory for seconds and count as latency.
    const budget = Math.min(this.maxBufferedBytes, this.brokers.length * (this.opts.maxInFlight + 1) * MAX_REQUEST_BYTES)
    const n = b.partitions.length
    for (let k = 0; k < n && this.bufferedBytes < budget; k++) {
      const p = b.partitions[(b.next + k) % n]!
      if (p.ready.length > 0 || p.open) continue
      const count = Math.min(this.perBatch, this.remaining)
      if (count <= 0) break
      this.append(p, count, now)
      this.close(p) // a short last batch
    }
    if (this.remaining <= 0) this.generating = false
  }

  // -- sending -----------------------------------------------------------------------------

  private drainAll(): void {
    for (const b of this.brokers) this.drain(b)
  }

  private drain(b: BrokerState): void {
    while (this.failed === undefined && b.inFlight < this.opts.maxInFlight) {
      if (!this.throttled) this.fillUnthrottled(b)
      else if (this.opts.lingerMs <= 0) for (const p of b.partitions) this.close(p)
      const batches: ReadyBatch[] = []
      let bytes = 0
      let last = -1
      const n = b.partitions.length
      for (let k = 0; k < n; k++) {
        const i = (b.next + k) % n
        const p = b.partitions[i]!
        const batch = p.ready[0]
        if (!batch) continue
        if (batches.length > 0 && bytes + batch.bytes.length > MAX_REQUEST_BYTES) break
        p.ready.shift()
        batches.push(batch)
        bytes += batch.bytes.length
        last = i
      }
      if (batches.length === 0) return
      // The next request starts after the last partition this one carried, so every partition
      // gets its turn (round-robin over partitions, not over requests).
      b.next = (last + 1) % n
      this.send(b, batches)
    }
  }

  private send(b: BrokerState, batches: ReadyBatch[]): void {
    b.inFlight++
    const body: Encodable<ProduceRequestData> = {
      transactionalId: null,
      acks: this.opts.acks,
      timeoutMs: this.opts.requestTimeoutMs,
      topicData: [{ name: this.opts.topic, partitionData: batches.map((x) => ({ index: x.partition, records: x.bytes })) }],
    }
    let sent: Promise<unknown>
    if (this.opts.acks === 0) {
      const codec = ProduceRequest.codec(b.version)
      sent = b.conn.sendOneWay({
        apiKey: ProduceRequest.apiKey,
        apiVersion: b.version,
        flexibleHeader: ProduceRequest.isFlexible(b.version),
        encodeBody: (w) => codec.encode(w, body),
      })
    } else {
      sent = b.conn.request(ProduceRequest, ProduceResponse, b.version, body).then((res) => {
        for (const t of res.responses) {
          for (const p of t.partitionResponses) {
            throwIfError(p.errorCode, `Produce to ${t.name}-${p.index}`, p.errorMessage)
          }
        }
      })
    }
    sent.then(
      () => this.onAcked(b, batches),
      (err: unknown) => this.fail(err),
    )
  }

  private onAcked(b: BrokerState, batches: ReadyBatch[]): void {
    b.inFlight--
    const now = performance.now()
    const { meter, template } = this.opts
    for (const batch of batches) {
      const s = batch.stamps
      for (let i = 0; i < s.length; i += 2) meter.latency((now - s[i]!) * 1000, s[i + 1]!)
      meter.add(batch.count, batch.count * template.recordSize)
      this.bufferedBytes -= template.bytes.length
      if (batch.buf) this.pool.push(batch.buf)
    }
    if (this.failed !== undefined || this.finished) return
    this.drain(b)
    this.checkDone()
  }

  private checkDone(): void {
    if (this.finished || this.generating) return
    if (this.partitions.some((p) => p.open || p.ready.length > 0)) return
    if (this.brokers.some((b) => b.inFlight > 0)) return
    this.finished = true
    if (this.timer) clearTimeout(this.timer)
    this.resolveRun()
  }

  private fail(err: unknown): void {
    if (this.failed !== undefined) return
    this.failed = err
    this.finished = true
    this.generating = false
    if (this.timer) clearTimeout(this.timer)
    this.rejectRun(err)
  }
}
