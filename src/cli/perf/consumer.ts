// The perf consumer: Fetch loops without a consumer group, one per leader broker, each fetching
// all of that broker's partitions from given start offsets. Used by `perf consume` and `perf e2e`.
//
// Records are counted from batch headers only (readBatchHeader: recordCount, offsets), never
// decoded — except by an onRecordValue callback, which e2e uses to read the send time each value
// carries. A fetch may return a first batch that starts before the fetch offset (Kafka returns the
// whole batch holding it) and a partial batch at the end (KIP-74): records before the fetch offset
// and the partial batch are skipped, the next fetch starts after the last complete batch.
//
// read_committed (readCommitted): the leader answers up to the last stable offset and the
// batches of aborted transactions are not counted, by the client's AbortedFilter.
//
// It stops when every partition reached its end offset (when given), when `maxRecords` records
// were counted (the count stops exactly there), after durationMs, or on stop(); and fails when no
// record arrives for idleTimeoutMs while more are expected.
import type { KafkaClient } from '../../client/client.js'
import { AbortedFilter } from '../../client/consumer.js'
import { ClientError, throwIfError } from '../../client/errors.js'
import type { TopicInfo } from '../../client/metadata.js'
import { FetchRequest, type FetchRequestData, FetchResponse } from '../../protocol/messages/01-fetch.js'
import type { Encodable } from '../../protocol/schema.js'
import {
  BATCH_HEADER_SIZE,
  BATCH_LENGTH_OFFSET,
  CompressionType,
  LOG_OVERHEAD,
  MIN_BATCH_LENGTH,
  readBatchHeader,
} from '../../protocol/records/batch.js'
import { iterateRecords } from '../../protocol/records/iterator.js'
import type { Meter } from './stats.js'

export interface PerfConsumerOptions {
  client: KafkaClient
  topic: TopicInfo
  startOffsets: Map<number, number>
  /** Stop each partition at this offset (exclusive); absent: no end. */
  endOffsets?: Map<number, number>
  /** Stop after this many records (Infinity: no limit). setTarget() may change it. */
  maxRecords: number
  durationMs: number
  maxWaitMs: number
  minBytes: number
  fetchMaxBytes: number
  partitionMaxBytes: number
  idleTimeoutMs: number
  meter: Meter
  /** Record each Fetch round trip as a latency sample (perf consume). */
  measureFetchLatency: boolean
  /** Called with every record value at or after the fetch offset (decodes records: e2e only). */
  onRecordValue?: (value: Buffer | null) => void
  /** Fetch isolation_level 1: batches of aborted transactions are not counted (AbortedFilter). */
  readCommitted?: boolean
}

interface PartitionCursor {
  partition: number
  offset: number
  end: number
}

export class PerfConsumer {
  private readonly opts: PerfConsumerOptions
  private readonly cursors: PartitionCursor[]
  private maxRecords: number
  private stopped = false
  private startedAt = 0
  private lastProgressAt = 0

  constructor(opts: PerfConsumerOptions) {
    this.opts = opts
    this.maxRecords = opts.maxRecords
    this.cursors = opts.topic.partitions.map((p) => ({
      partition: p.partition,
      offset: opts.startOffsets.get(p.partition) ?? 0,
      end: opts.endOffsets?.get(p.partition) ?? Number.POSITIVE_INFINITY,
    }))
  }

  /** Records counted so far. */
  get records(): number {
    return this.opts.meter.records
  }

  /** Changes how many records to stop after (e2e: once the producer knows how many it sent). */
  setTarget(maxRecords: number): void {
    this.maxRecords = maxRecords
    if (this.opts.meter.records >= maxRecords) this.opts.meter.stop()
  }

  stop(): void {
    this.stopped = true
  }

  async run(): Promise<void> {
    this.startedAt = this.lastProgressAt = performance.now()
    const byLeader = new Map<number, PartitionCursor[]>()
    this.opts.topic.partitions.forEach((p, i) => {
      const list = byLeader.get(p.leader) ?? []
      list.push(this.cursors[i]!)
      byLeader.set(p.leader, list)
    })
    // One loop failing ends the others at their next round.
    await Promise.all(
      [...byLeader].map(([nodeId, cursors]) =>
        this.loop(nodeId, cursors).catch((err: unknown) => {
          this.stopped = true
          throw err
        }),
      ),
    )
  }

  private done(): boolean {
    if (this.stopped || this.opts.meter.records >= this.maxRecords) return true
    if (performance.now() - this.startedAt >= this.opts.durationMs) return true
    return this.cursors.every((c) => c.offset >= c.end)
  }

  private async loop(nodeId: number, cursors: PartitionCursor[]): Promise<void> {
    const { client, topic, meter } = this.opts
    const conn = await client.connection(nodeId)
    const version = conn.versions!.pick(FetchRequest, FetchResponse)
    const byIndex = new Map(cursors.map((c) => [c.partition, c]))
    const timeoutMs = conn.requestTimeoutMs + this.opts.maxWaitMs
    while (!this.done()) {
      const active = cursors.filter((c) => c.offset < c.end)
      if (active.length === 0) return
      const body: Encodable<FetchRequestData> = {
        replicaId: -1,
        maxWaitMs: this.opts.maxWaitMs,
        minBytes: this.opts.minBytes,
        maxBytes: this.opts.fetchMaxBytes,
        isolationLevel: this.opts.readCommitted ? 1 : 0,
        sessionId: 0,
        sessionEpoch: -1,
        topics: [
          {
            topic: topic.name,
            topicId: topic.topicId,
            partitions: active.map((c) => ({
              partition: c.partition,
              currentLeaderEpoch: -1,
              fetchOffset: c.offset,
              lastFetchedEpoch: -1,
              logStartOffset: -1,
              partitionMaxBytes: this.opts.partitionMaxBytes,
            })),
          },
        ],
        forgottenTopicsData: [],
        rackId: '',
      }
      const sentAt = performance.now()
      const res = await conn.request(FetchRequest, FetchResponse, version, body, { timeoutMs })
      const now = performance.now()
      throwIfError(res.errorCode, `Fetch from node ${nodeId}`)
      let got = 0
      for (const t of res.responses) {
        for (const p of t.partitions) {
          throwIfError(p.errorCode, `Fetch ${topic.name}-${p.partitionIndex}`)
          const c = byIndex.get(p.partitionIndex)
          if (!c || !p.records || p.records.length === 0) continue
          const aborted = this.opts.readCommitted ? new AbortedFilter(p.abortedTransactions ?? []) : null
          got += this.consume(c, p.records, aborted)
        }
      }
      if (this.opts.measureFetchLatency && got > 0) meter.latency((now - sentAt) * 1000)
      if (got > 0) this.lastProgressAt = now
      else if (now - this.lastProgressAt > this.opts.idleTimeoutMs && !this.done()) {
        throw new ClientError('REQUEST_TIMED_OUT', `no new records for ${this.opts.idleTimeoutMs} ms (${meter.records} consumed so far)`)
      }
    }
  }

  /** Counts the records of one partition's fetched bytes and advances its offset; returns the count. */
  private consume(c: PartitionCursor, records: Buffer, aborted: AbortedFilter | null): number {
    const { meter, onRecordValue } = this.opts
    let pos = 0
    let counted = 0
    const len = records.length
    while (len - pos >= BATCH_HEADER_SIZE) {
      const batchLength = records.readInt32BE(pos + BATCH_LENGTH_OFFSET)
      if (batchLength < MIN_BATCH_LENGTH) throw new ClientError('CORRUPT_MESSAGE', `batch length ${batchLength} in fetched data`)
      const size = LOG_OVERHEAD + batchLength
      if (pos + size > len) break // a partial batch at the end (KIP-74)
      const h = readBatchHeader(records, pos)
      const last = h.baseOffset + h.lastOffsetDelta
      const dropped = aborted?.skips(records, h) === true // every batch, in order: markers end transactions
      if (last >= c.offset && !h.isControl && !dropped) {
        const skip = h.baseOffset >= c.offset ? 0 : c.offset - h.baseOffset
        let n = Math.max(0, h.recordCount - skip)
        const room = this.maxRecords - meter.records
        if (n > room) n = Math.max(0, room)
        if (onRecordValue && n > 0) {
          if (h.compression !== CompressionType.None) {
            throw new ClientError('UNSUPPORTED_COMPRESSION_TYPE', `e2e reads uncompressed batches only (codec ${h.compression})`)
          }
          let seen = 0
          for (const r of iterateRecords(records, pos)) {
            if (r.offset < c.offset) continue
            if (seen++ >= n) break
            onRecordValue(r.value)
          }
        }
        meter.add(n, size)
        counted += n
      }
      if (last >= c.offset) c.offset = last + 1
      pos += size
      if (meter.records >= this.maxRecords) {
        meter.stop() // the rate ends with the last record, not with a long poll still in flight
        break
      }
    }
    return counted
  }
}
