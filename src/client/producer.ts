// A producer for one topic: Kafka's RecordAccumulator and Sender in one object, kept small.
//
//   const producer = await Producer.create(client, { topic: 'events', onDelivery: (r) => … })
//   producer.send({ key: null, value: Buffer.from('hello') })   // synchronous; returns the partition
//   if (producer.isFull) await producer.waitForSpace()            // back-pressure (buffer.memory)
//   await producer.flush()                                        // everything reported
//
// Partitioning: an explicit partition, else murmur2 of the key (the Java client's partition), else
// the sticky partition for records without a key (partitioner.ts).
//
// Batching: each partition has one open batch that fills up to batchSizeBytes (a record larger than
// that gets a batch of its own, as in Kafka); it becomes ready when full, lingerMs after its first
// record, or on flush(). Batches are built with the protocol layer (uncompressed record batch v2)
// when first sent.
//
// Sending: one Produce request per leader carries the ready batches of its partitions (up to
// maxRequestBytes), with up to maxInFlightPerBroker requests in flight per broker. A partition has at
// most ONE batch in flight, so a retried batch can never be overtaken by the next one and records of
// a partition are stored in the order they were sent (the ordering Kafka gives with
// max.in.flight.requests.per.connection=1).
//
// Idempotence and transactions: given an `identity` (a transactional producer,
// transactional-producer.ts, is one), every batch carries its producer id and epoch and the
// partition's next sequence number, assigned when the batch is first encoded and kept on retries,
// so the broker stores a retried batch once; batches are marked transactional when the identity has
// a transactional id, and identity.beforeSend runs before a request goes (transactions v1 add the
// partitions to the transaction there). A batch split after MESSAGE_TOO_LARGE gives its sequence
// numbers back (nothing of it was stored); resetSequences() starts every partition at 0 again after
// the identity's epoch changed.
//
// Errors: retriable ones (NOT_LEADER_OR_FOLLOWER, LEADER_NOT_AVAILABLE, NETWORK_EXCEPTION,
// REQUEST_TIMED_OUT, NOT_ENOUGH_REPLICAS, …) refresh the metadata and retry the same batch after a
// backoff (retryBackoffMs doubling up to retryBackoffMaxMs) until deliveryTimeoutMs after the batch
// was opened (Kafka's delivery.timeout.ms); a request that timed out may have been stored, so a retry
// can duplicate it (at least once, as Kafka without idempotence) — unless the batches carry an
// identity, whose sequence numbers let the broker store a retry once. MESSAGE_TOO_LARGE on a batch of
// several records splits it in two and tries again (Kafka's splitAndReenqueue), so only a record
// that is too large on its own fails. Every record is reported exactly once through onDelivery,
// with its batch: stored (with the base offset; -1 with acks=0) or failed (with a ClientError).
import { ProduceRequest, type ProduceRequestData, ProduceResponse } from '../protocol/messages/00-produce.js'
import { BATCH_HEADER_SIZE } from '../protocol/records/batch.js'
import { ZERO_UUID } from '../protocol/primitives/uuid.js'
import type { Encodable } from '../protocol/schema.js'
import type { KafkaClient } from './client.js'
import { ClientError, errorName } from './errors.js'
import { loadTopic } from './load-topic.js'
import type { TopicInfo } from './metadata.js'
import { partitionForKey, StickyPartitioner } from './partitioner.js'
import {
  type Batch,
  encodeBatch,
  newBatch,
  type ProducerRecord,
  type RecordHeader,
  recordSizeUpperBound,
  splitBatch,
} from './producer-batch.js'

export { type ProducerRecord, type RecordHeader, recordSizeUpperBound }

export interface DeliveryReport<R> {
  partition: number
  /** The records of one batch, in the order they were sent. */
  records: R[]
  /** Offset of the first record; -1 with acks=0 or on error. */
  baseOffset: number
  /** null when stored. */
  error: ClientError | null
}

export interface ProducerOptions<R> {
  topic: string
  /** -1 (all, default), 1 or 0. */
  acks?: number
  /** Kafka's batch.size. Default 16384. */
  batchSizeBytes?: number
  /** Kafka's linger.ms. Default 5 (Kafka 4's default). */
  lingerMs?: number
  /** Batch codec, a CompressionType (0 none, 1 gzip, 2 snappy, 3 lz4, 4 zstd). Default 0. */
  compression?: number
  /** Kafka's buffer.memory: isFull once this many bytes are unacknowledged. Default 32 MiB. */
  bufferMemoryBytes?: number
  /** Kafka's delivery.timeout.ms. Default 120000. */
  deliveryTimeoutMs?: number
  /** Default 100 (retry.backoff.ms). */
  retryBackoffMs?: number
  /** Default 1000 (retry.backoff.max.ms). */
  retryBackoffMaxMs?: number
  /** Default 5. */
  maxInFlightPerBroker?: number
  /** Ready batches are grouped into one request up to this size (a bigger batch goes alone). Default 1 MiB. */
  maxRequestBytes?: number
  /** Ask the broker to create the topic if it is missing (the broker must allow it). Default true, as Kafka's producer. */
  autoCreateTopic?: boolean
  /** How long create() waits for a new topic's partitions to appear. Default 10000. */
  topicWaitMs?: number
  /** Called once per batch when it is stored or has failed. Must not throw. */
  onDelivery?(report: DeliveryReport<R>): void
  /** For the sticky partitioner's starting point (tests). */
  random?: () => number
  /** Idempotent or transactional writes (see the header); read each time a batch is encoded. */
  identity?: ProducerIdentity
}

/** Who the batches are written as: an idempotent or transactional producer's id and epoch. */
export interface ProducerIdentity {
  readonly producerId: number
  readonly producerEpoch: number
  /** Sent in Produce; batches are transactional when it is not null. */
  readonly transactionalId: string | null
  /** Caps the Produce version (transactions v1: 11, so the broker does not add partitions itself, KIP-890). */
  readonly maxProduceVersion: number
  /** Runs before a Produce request with these partitions' batches is sent; a rejection fails them with its error. */
  beforeSend?(topic: string, partitions: number[]): Promise<void>
}

interface PartitionState<R> {
  index: number
  open: Batch<R> | null
  /** Closed batches, oldest first. */
  queue: Batch<R>[]
  inFlight: boolean
  /** With an identity: the sequence number of the partition's next batch. */
  nextSequence: number
}

/**
 * What a pending record costs in memory beyond its encoded size — the objects that hold it until
 * it is acknowledged (the record, its Buffer views, its timestamp and size) — counted against
 * bufferMemoryBytes so that many small records do not take many times the budget.
 */
const RECORD_MEMORY_OVERHEAD_BYTES = 200

export class Producer<R extends ProducerRecord = ProducerRecord> {
  readonly topic: string
  /** The topic's id as of the last metadata (ZERO_UUID when the broker gave none). */
  private topicId = ZERO_UUID
  readonly acks: number
  private readonly client: KafkaClient
  private readonly batchSizeBytes: number
  private readonly lingerMs: number
  private readonly compression: number
  private readonly bufferMemoryBytes: number
  private readonly deliveryTimeoutMs: number
  private readonly retryBackoffMs: number
  private readonly retryBackoffMaxMs: number
  private readonly maxInFlightPerBroker: number
  private readonly maxRequestBytes: number
  private readonly onDelivery: (report: DeliveryReport<R>) => void
  private readonly sticky: StickyPartitioner
  private readonly identity: ProducerIdentity | null
  private partitions: PartitionState<R>[] = []
  private readonly brokerInFlight = new Map<number, number>()
  private buffered = 0
  private pending = 0
  private flushing = 0
  private drainScheduled = false
  private timer: NodeJS.Timeout | undefined
  private timerAt = Number.POSITIVE_INFINITY
  private refreshing = false
  private lastRefreshAt = Number.NEGATIVE_INFINITY
  private closed = false
  private spaceWaiters: Array<() => void> = []
  private flushWaiters: Array<() => void> = []

  private constructor(client: KafkaClient, opts: ProducerOptions<R>, info: TopicInfo) {
    this.client = client
    this.topic = opts.topic
    this.acks = opts.acks ?? -1
    if (this.acks !== -1 && this.acks !== 0 && this.acks !== 1) throw new RangeError(`acks must be -1, 0 or 1, got ${this.acks}`)
    this.batchSizeBytes = Math.max(1, opts.batchSizeBytes ?? 16_384)
    this.lingerMs = Math.max(0, opts.lingerMs ?? 5)
    this.compression = opts.compression ?? 0
    this.bufferMemoryBytes = opts.bufferMemoryBytes ?? 32 * 1024 * 1024
    this.deliveryTimeoutMs = opts.deliveryTimeoutMs ?? 120_000
    this.retryBackoffMs = opts.retryBackoffMs ?? 100
    this.retryBackoffMaxMs = Math.max(this.retryBackoffMs, opts.retryBackoffMaxMs ?? 1000)
    this.maxInFlightPerBroker = Math.max(1, opts.maxInFlightPerBroker ?? 5)
    this.maxRequestBytes = opts.maxRequestBytes ?? 1024 * 1024
    this.onDelivery = opts.onDelivery ?? (() => {})
    this.sticky = new StickyPartitioner(this.batchSizeBytes, opts.random)
    this.identity = opts.identity ?? null
    this.updatePartitions(info)
  }

  /**
   * A producer for opts.topic. Throws a ClientError UNKNOWN_TOPIC_OR_PARTITION when the topic does
   * not exist (and is not auto-created), or the topic's error (INVALID_TOPIC_EXCEPTION, …).
   */
  static async create<R extends ProducerRecord = ProducerRecord>(client: KafkaClient, opts: ProducerOptions<R>): Promise<Producer<R>> {
    const info = await loadTopic(client, opts.topic, opts.autoCreateTopic ?? true, opts.topicWaitMs ?? 10_000)
    return new Producer<R>(client, opts, info)
  }

  /** Partitions of the topic as of the last metadata. */
  get partitionCount(): number {
    return this.partitions.length
  }

  /** Estimated bytes of records sent and not yet reported. */
  get bufferedBytes(): number {
    return this.buffered
  }

  /** Records sent and not yet reported through onDelivery. */
  get pendingRecords(): number {
    return this.pending
  }

  /** Whether the unacknowledged bytes reached bufferMemoryBytes; wait with waitForSpace(). */
  get isFull(): boolean {
    return this.buffered >= this.bufferMemoryBytes
  }

  /**
   * Adds a record to its partition's open batch and returns the partition. Throws a ClientError
   * UNKNOWN_TOPIC_OR_PARTITION for an explicit partition the topic does not have.
   */
  send(record: R): number {
    if (this.closed) throw new ClientError('NETWORK_EXCEPTION', 'producer closed')
    const size = recordSizeUpperBound(record)
    const partition = this.choosePartition(record, size)
    const p = this.partitions[partition]!
    let open = p.open
    if (open && open.records.length > 0 && open.sizeBytes + size > this.batchSizeBytes) {
      p.queue.push(open)
      open = p.open = null
    }
    const now = performance.now()
    if (!open) open = p.open = newBatch<R>(partition, now)
    open.records.push(record)
    open.timestamps.push(record.timestamp ?? Date.now())
    open.sizes.push(size)
    open.sizeBytes += size
    if (open.sizeBytes >= this.batchSizeBytes) {
      p.queue.push(open)
      p.open = null
    }
    this.buffered += size + RECORD_MEMORY_OVERHEAD_BYTES
    this.pending++
    this.scheduleDrain()
    return partition
  }

  /** Resolves once the buffered bytes are below bufferMemoryBytes (or the producer is closed). */
  waitForSpace(): Promise<void> {
    if (!this.isFull || this.closed) return Promise.resolve()
    return new Promise((resolve) => this.spaceWaiters.push(resolve))
  }

  /** Sends every open batch now and resolves once every record sent so far is reported. */
  async flush(): Promise<void> {
    if (this.pending === 0 || this.closed) return
    this.flushing++
    try {
      this.scheduleDrain()
      await new Promise<void>((resolve) => this.flushWaiters.push(resolve))
    } finally {
      this.flushing--
    }
  }

  /**
   * Starts every partition's sequence numbers at 0 again: the identity's producer id or epoch
   * changed (an epoch bump). Only between batches: nothing may be pending.
   */
  resetSequences(): void {
    if (this.pending > 0) throw new ClientError('INVALID_TXN_STATE', 'resetSequences with records pending')
    for (const p of this.partitions) p.nextSequence = 0
  }

  /**
   * Stops sending. Records not yet reported stay unreported (call flush() first to wait for them);
   * the client is the caller's to close.
   */
  close(): void {
    this.closed = true
    if (this.timer) clearTimeout(this.timer)
    this.timer = undefined
    this.wake(true)
  }

  // -- partitioning ------------------------------------------------------------------------

  private choosePartition(record: R, size: number): number {
    const n = this.partitions.length
    if (record.partition !== undefined) {
      if (!Number.isInteger(record.partition) || record.partition < 0 || record.partition >= n) {
        throw new ClientError('UNKNOWN_TOPIC_OR_PARTITION', `topic '${this.topic}' has no partition ${record.partition} (it has ${n})`)
      }
      return record.partition
    }
    if (record.key !== null) return partitionForKey(record.key, n)
    return this.sticky.next(n, size)
  }

  private updatePartitions(info: TopicInfo): void {
    this.topicId = info.topicId
    const count = Math.max(this.partitions.length, ...info.partitions.map((p) => p.partition + 1))
    for (let i = this.partitions.length; i < count; i++) {
      this.partitions.push({ index: i, open: null, queue: [], inFlight: false, nextSequence: 0 })
    }
  }

  // -- sending -----------------------------------------------------------------------------

  private scheduleDrain(): void {
    if (this.drainScheduled || this.closed) return
    this.drainScheduled = true
    setImmediate(() => this.drain())
  }

  /** Expires overdue batches, sends what is ready to the leaders, and arms the timer for what is not. */
  private drain(): void {
    this.drainScheduled = false
    if (this.closed) return
    const now = performance.now()
    this.expire(now)
    let wakeAt = Number.POSITIVE_INFINITY
    let needMetadata = false
    const byLeader = new Map<number, Batch<R>[]>()
    for (const p of this.partitions) {
      if (p.inFlight) continue
      if (p.queue.length === 0 && p.open) {
        const readyAt = this.flushing > 0 ? now : p.open.createdAt + this.lingerMs
        if (readyAt > now) {
          wakeAt = Math.min(wakeAt, readyAt)
          continue
        }
        p.queue.push(p.open)
        p.open = null
      }
      const head = p.queue[0]
      if (!head) continue
      if (head.retryAt > now) {
        wakeAt = Math.min(wakeAt, head.retryAt)
        continue
      }
      const leader = this.client.leaderOf(this.topic, p.index)
      if (leader < 0) {
        needMetadata = true
        continue
      }
      const list = byLeader.get(leader) ?? []
      list.push(head)
      byLeader.set(leader, list)
    }
    for (const [leader, batches] of byLeader) this.sendToLeader(leader, batches)
    if (needMetadata) wakeAt = Math.min(wakeAt, this.refreshMetadata(now))
    // Batches that cannot be sent yet still expire on time.
    for (const p of this.partitions) {
      if (p.inFlight) continue
      const first = p.queue[0] ?? p.open
      if (first) wakeAt = Math.min(wakeAt, first.createdAt + this.deliveryTimeoutMs)
    }
    this.armTimer(wakeAt, now)
    this.wake(false) // expired batches may have freed space or ended a flush
  }

  private sendToLeader(leader: number, batches: Batch<R>[]): void {
    let i = 0
    while (i < batches.length && (this.brokerInFlight.get(leader) ?? 0) < this.maxInFlightPerBroker) {
      const chosen: Batch<R>[] = []
      let bytes = 0
      for (; i < batches.length; i++) {
        const b = batches[i]!
        b.bytes ??= this.encode(b)
        if (chosen.length > 0 && bytes + b.bytes.length > this.maxRequestBytes) break
        chosen.push(b)
        bytes += b.bytes.length
      }
      void this.sendRequest(leader, chosen)
    }
  }

  /**
   * identity.beforeSend; when it refuses, nothing of the batches reached the broker, so their
   * sequence numbers are given back (each is its partition's only encoded batch) and a retry
   * encodes them again.
   */
  private async beforeSend(batches: Batch<R>[]): Promise<void> {
    if (!this.identity?.beforeSend) return
    try {
      await this.identity.beforeSend(
        this.topic,
        batches.map((b) => b.partition),
      )
    } catch (err) {
      for (const b of batches) {
        this.partitions[b.partition]!.nextSequence = b.baseSequence
        b.baseSequence = -1
        b.bytes = null
      }
      throw err
    }
  }

  /** The batch's bytes; with an identity, stamped with it and the partition's next sequence numbers. */
  private encode(b: Batch<R>): Buffer {
    const id = this.identity
    if (!id) return encodeBatch(b, this.compression, null)
    const p = this.partitions[b.partition]!
    b.baseSequence = p.nextSequence
    // Sequences wrap from Int32 max to 0, as Kafka's DefaultRecordBatch.incrementSequence.
    p.nextSequence = (p.nextSequence + b.records.length) % 0x80000000
    // Read each field: an identity may serve them from getters, which a spread would not copy.
    const stamp = {
      producerId: id.producerId,
      producerEpoch: id.producerEpoch,
      transactionalId: id.transactionalId,
      baseSequence: b.baseSequence,
    }
    return encodeBatch(b, this.compression, stamp)
  }

  private async sendRequest(leader: number, batches: Batch<R>[]): Promise<void> {
    for (const b of batches) {
      const p = this.partitions[b.partition]!
      p.inFlight = true
      p.queue.shift() // b is the head of its partition's queue
      b.attempts++
    }
    this.brokerInFlight.set(leader, (this.brokerInFlight.get(leader) ?? 0) + 1)
    const body: Encodable<ProduceRequestData> = {
      transactionalId: this.identity?.transactionalId ?? null,
      acks: this.acks,
      timeoutMs: this.client.requestTimeoutMs,
      // Both: the version chosen decides which one travels (the id from Produce v13, KIP-516).
      topicData: [
        { name: this.topic, topicId: this.topicId, partitionData: batches.map((b) => ({ index: b.partition, records: b.bytes! })) },
      ],
    }
    let outcomes: Array<{ baseOffset: number; error: ClientError | null }>
    try {
      await this.beforeSend(batches)
      outcomes = this.acks === 0 ? await this.sendWithoutAcks(leader, body, batches) : await this.sendWithAcks(leader, body, batches)
    } catch (err) {
      const error = err instanceof ClientError ? err : new ClientError('UNKNOWN_SERVER_ERROR', String(err), { cause: err })
      outcomes = batches.map(() => ({ baseOffset: -1, error }))
    }
    this.brokerInFlight.set(leader, (this.brokerInFlight.get(leader) ?? 1) - 1)
    const now = performance.now()
    batches.forEach((b, k) => {
      this.partitions[b.partition]!.inFlight = false
      const o = outcomes[k]!
      if (o.error) this.onBatchError(b, o.error, now)
      else this.report(b, o.baseOffset, null)
    })
    this.wake(false)
    this.scheduleDrain()
  }

  private async sendWithAcks(leader: number, body: Encodable<ProduceRequestData>, batches: Batch<R>[]) {
    const res = await this.client.request(ProduceRequest, ProduceResponse, body, { nodeId: leader, maxVersion: this.maxProduceVersion() })
    const byPartition = new Map<number, (typeof res.responses)[number]['partitionResponses'][number]>()
    for (const t of res.responses) {
      if (t.name === this.topic || t.topicId === this.topicId) for (const p of t.partitionResponses) byPartition.set(p.index, p)
    }
    return batches.map((b) => {
      const p = byPartition.get(b.partition)
      if (!p) return { baseOffset: -1, error: new ClientError('UNKNOWN_SERVER_ERROR', `no answer for ${this.topic}-${b.partition}`) }
      if (p.errorCode === 0) return { baseOffset: p.baseOffset, error: null }
      const details = [p.errorMessage, ...p.recordErrors.map((e) => e.batchIndexErrorMessage)].filter((m) => m)
      const where = `${this.topic}-${b.partition}`
      return {
        baseOffset: -1,
        error: new ClientError(errorName(p.errorCode), details.length > 0 ? `${where}: ${details.join('; ')}` : where),
      }
    })
  }

  /** Produce v13 names the topic by id: without one (metadata older than v10) stay at v12, as Kafka's producer does. */
  private maxProduceVersion(): number {
    const cap = this.identity?.maxProduceVersion ?? Number.MAX_SAFE_INTEGER
    return Math.min(cap, this.topicId === ZERO_UUID ? 12 : Number.MAX_SAFE_INTEGER)
  }

  /** acks=0: the broker answers nothing; a batch is done once its bytes are handed to the kernel. */
  private async sendWithoutAcks(leader: number, body: Encodable<ProduceRequestData>, batches: Batch<R>[]) {
    const conn = await this.client.connection(leader)
    const version = conn.versions!.pick(ProduceRequest, ProduceResponse, this.maxProduceVersion())
    const codec = ProduceRequest.codec(version)
    await conn.sendOneWay({
      apiKey: ProduceRequest.apiKey,
      apiVersion: version,
      flexibleHeader: ProduceRequest.isFlexible(version),
      encodeBody: (w) => codec.encode(w, body),
    })
    return batches.map(() => ({ baseOffset: -1, error: null }))
  }

  private onBatchError(b: Batch<R>, error: ClientError, now: number): void {
    const p = this.partitions[b.partition]!
    if ((error.code === 'MESSAGE_TOO_LARGE' || error.code === 'RECORD_LIST_TOO_LARGE') && b.records.length > 1) {
      if (b.baseSequence >= 0) p.nextSequence = b.baseSequence // the halves take the batch's numbers again
      p.queue.unshift(...splitBatch(b))
      return
    }
    const backoff = Math.min(this.retryBackoffMaxMs, this.retryBackoffMs * 2 ** Math.min(20, b.attempts - 1))
    if (error.retriable && now + backoff < b.createdAt + this.deliveryTimeoutMs) {
      b.lastError = error
      b.retryAt = now + backoff
      p.queue.unshift(b)
      this.lastRefreshAt = Number.NEGATIVE_INFINITY // the leader may have moved: look again now
      this.refreshMetadata(now)
      return
    }
    if (error.retriable) {
      b.lastError = error
      this.report(b, -1, this.timeoutError(b, b.partition))
      return
    }
    this.report(b, -1, error)
  }

  /** Fails the batches (not in flight) that have waited deliveryTimeoutMs since they were opened. */
  private expire(now: number): void {
    for (const p of this.partitions) {
      if (p.inFlight) continue
      while (p.queue.length > 0 && p.queue[0]!.createdAt + this.deliveryTimeoutMs <= now) {
        const b = p.queue.shift()!
        this.report(b, -1, this.timeoutError(b, p.index))
      }
      if (p.queue.length === 0 && p.open && p.open.createdAt + this.deliveryTimeoutMs <= now) {
        const open = p.open
        p.open = null
        this.report(open, -1, this.timeoutError(open, p.index))
      }
    }
  }

  private timeoutError(b: Batch<R>, partition: number): ClientError {
    const last = b.lastError
    const why = `${this.topic}-${partition}: not delivered within ${this.deliveryTimeoutMs} ms (delivery timeout)`
    return last ? new ClientError(last.code, `${why}; last error: ${last.detail}`) : new ClientError('REQUEST_TIMED_OUT', why)
  }

  private report(b: Batch<R>, baseOffset: number, error: ClientError | null): void {
    this.buffered -= b.sizeBytes - BATCH_HEADER_SIZE + b.records.length * RECORD_MEMORY_OVERHEAD_BYTES
    this.pending -= b.records.length
    this.onDelivery({ partition: b.partition, records: b.records, baseOffset, error })
  }

  /** Wakes back-pressure and flush waiters whose condition now holds (all of them when closing). */
  private wake(all: boolean): void {
    if (all || !this.isFull) {
      const w = this.spaceWaiters
      this.spaceWaiters = []
      for (const f of w) f()
    }
    if (all || this.pending === 0) {
      const w = this.flushWaiters
      this.flushWaiters = []
      for (const f of w) f()
    }
  }

  /**
   * Fetches the topic's metadata again unless a fetch is running or one ran less than
   * retryBackoffMs ago; returns when the next one may start.
   */
  private refreshMetadata(now: number): number {
    if (this.refreshing) return Number.POSITIVE_INFINITY
    const allowedAt = this.lastRefreshAt + this.retryBackoffMs
    if (now < allowedAt) return allowedAt
    this.refreshing = true
    this.lastRefreshAt = now
    this.client
      .metadata([this.topic], { refresh: true })
      .then(
        (md) => {
          const info = md.topics.get(this.topic)
          if (info && info.error === null) this.updatePartitions(info)
        },
        () => {}, // the batches waiting for a leader expire with their own deadline
      )
      .finally(() => {
        this.refreshing = false
        this.scheduleDrain()
      })
    return now + this.retryBackoffMs
  }

  private armTimer(at: number, now: number): void {
    if (at === Number.POSITIVE_INFINITY) return
    if (this.timer && this.timerAt <= at) return
    if (this.timer) clearTimeout(this.timer)
    this.timerAt = at
    this.timer = setTimeout(
      () => {
        this.timer = undefined
        this.timerAt = Number.POSITIVE_INFINITY
        this.drain()
      },
      Math.max(1, Math.ceil(at - now)),
    )
  }
}
