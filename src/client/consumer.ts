// A record fetcher: the part of a Kafka consumer that turns Fetch responses into records, without
// any consumer-group logic (group-member.ts adds that). `tributary consume` uses it with and
// without a group; anything that needs decoded records in offset order can.
//
//   const fetcher = new Fetcher(client, { autoOffsetReset: 'earliest' })
//   fetcher.assign([{ topic: 'events', partition: 0, offset: 0 }])
//   for (;;) for (const p of await fetcher.poll()) for (const r of p.records) use(r)
//
// Each poll() sends one Fetch per leader broker for every assigned partition, at its position, and
// waits for all of them (long-poll: maxWaitMs). Positions then move past the last complete batch
// returned, as Kafka's consumer moves them on poll; a caller that processes only part of what it
// got calls seek() with the offset it wants next.
//
// What a Fetch response holds, and how each case is handled (as Kafka's Fetcher does):
// - The first batch may start before the fetch offset (Kafka returns the whole batch holding it):
//   its records below the position are dropped.
// - The last batch may be cut short (KIP-74, partitionMaxBytes): it is ignored and fetched again
//   next time from its start.
// - Control batches (transaction markers) are never returned; their offsets still advance the
//   position.
// - CRCs are checked (Kafka's check.crcs=true): a mismatch is CORRUPT_MESSAGE.
// - Compressed batches decode if the record iterator knows the codec; otherwise the poll fails
//   with UNSUPPORTED_COMPRESSION_TYPE naming the codec.
// - OFFSET_OUT_OF_RANGE: the position is reset as Kafka's auto.offset.reset says (earliest or
//   latest, through ListOffsets) and onOffsetReset reports it; 'none' fails instead.
// - NOT_LEADER_OR_FOLLOWER and the other "metadata is stale" codes: metadata is fetched again and
//   the partition retried next round. A topic that no longer exists fails the poll.
// - Lost connections are retried with a backoff; after MAX_FAILED_ROUNDS rounds in a row the
//   error is thrown.
//
// Isolation (Kafka's isolation.level): read_uncommitted (the default) returns every record, those
// of aborted transactions too. read_committed sends Fetch isolation_level=1: the leader answers only
// up to the last stable offset, with the aborted transactions that overlap what it returned
// (producer id and first offset), and the records of those transactions are dropped as Kafka's
// Java consumer drops them (CompletedFetch): walking the batches in offset order, a producer becomes
// "aborted" once a batch at or after its transaction's first offset is reached; its transactional
// batches are then skipped until its ABORT marker, which ends that transaction. A later transaction
// of the same producer that committed is kept. ListOffsets for 'latest' resets asks for the LSO.
import type { ErrorName } from '../protocol/errors.js'
import { KafkaError } from '../protocol/errors.js'
import { FetchRequest, type FetchRequestData, FetchResponse, type FetchResponseData } from '../protocol/messages/01-fetch.js'
import { type BatchHeader, batchCrcMatches, CompressionType } from '../protocol/records/batch.js'
import { readMarker } from '../protocol/records/control-record.js'
import { iterateBatches, iterateRecords } from '../protocol/records/iterator.js'
import type { Encodable } from '../protocol/schema.js'
import { listOffsets, OffsetSpec } from './admin.js'
import type { KafkaClient } from './client.js'
import { ClientError, errorName, throwIfError } from './errors.js'

export interface TopicPartition {
  topic: string
  partition: number
}

export interface TopicPartitionOffset extends TopicPartition {
  offset: number
}

export interface RecordHeader {
  key: string
  value: Buffer | null
}

export interface ConsumedRecord {
  topic: string
  partition: number
  offset: number
  /** ms since the epoch (CreateTime, or LogAppendTime when the topic says so). */
  timestamp: number
  key: Buffer | null
  value: Buffer | null
  headers: RecordHeader[]
}

/** What one poll brought for one partition. */
export interface FetchedPartition extends TopicPartition {
  /** In offset order, all at or after the position the fetch was sent with. */
  records: ConsumedRecord[]
  /** The partition's position after this poll (past the last complete batch returned). */
  nextOffset: number
  /** The partition's high watermark as the leader reported it. */
  highWatermark: number
  /** The partition's last stable offset as the leader reported it (-1 when it did not). */
  lastStableOffset: number
}

/** Kafka's isolation.level. */
export type IsolationLevel = 'read_uncommitted' | 'read_committed'

/** An aborted transaction of a Fetch response (Fetch v4+): its producer and its first offset. */
export interface AbortedTransaction {
  producerId: number
  firstOffset: number
}

/** Kafka's auto.offset.reset. */
export type OffsetResetPolicy = 'earliest' | 'latest' | 'none'

export interface FetcherOptions {
  /** Long-poll wait of each Fetch (Kafka's fetch.max.wait.ms). Default 500. */
  maxWaitMs?: number
  /** Default 1 (fetch.min.bytes). */
  minBytes?: number
  /** Cap on one Fetch response (fetch.max.bytes). Default 52428800. */
  maxBytes?: number
  /** Cap per partition (max.partition.fetch.bytes). Default 1048576. */
  partitionMaxBytes?: number
  /** Where to go after OFFSET_OUT_OF_RANGE. Default 'latest'. */
  autoOffsetReset?: OffsetResetPolicy
  /** Told of every reset after OFFSET_OUT_OF_RANGE. */
  onOffsetReset?: (tp: TopicPartition, from: number, to: number, policy: OffsetResetPolicy) => void
  /** Default 'read_uncommitted', as Kafka's consumer. */
  isolationLevel?: IsolationLevel
}

/** Per-partition errors after which fresh metadata (a new leader, a new topic id) may help. */
const STALE_METADATA: ReadonlySet<ErrorName> = new Set<ErrorName>([
  'NOT_LEADER_OR_FOLLOWER',
  'LEADER_NOT_AVAILABLE',
  'REPLICA_NOT_AVAILABLE',
  'UNKNOWN_TOPIC_OR_PARTITION',
  'UNKNOWN_TOPIC_ID',
  'FENCED_LEADER_EPOCH',
  'UNKNOWN_LEADER_EPOCH',
  'OFFSET_NOT_AVAILABLE',
  'KAFKA_STORAGE_ERROR',
  'NOT_CONTROLLER',
  'BROKER_NOT_AVAILABLE',
])

const MAX_FAILED_ROUNDS = 10
const CODEC_NAMES = Object.fromEntries(Object.entries(CompressionType).map(([name, id]) => [id, name.toLowerCase()]))

const keyOf = (topic: string, partition: number) => `${topic}\u0000${partition}`

interface Cursor {
  topic: string
  partition: number
  offset: number
}

export class Fetcher {
  private readonly maxWaitMs: number
  private readonly minBytes: number
  private readonly maxBytes: number
  private readonly partitionMaxBytes: number
  private readonly reset: OffsetResetPolicy
  private readonly onOffsetReset: FetcherOptions['onOffsetReset']
  private readonly readCommitted: boolean
  private cursors = new Map<string, Cursor>()
  private staleMetadata = true
  private failedRounds = 0
  /** Bumped by assign(): responses to fetches sent before it are dropped. */
  private epoch = 0

  constructor(
    private readonly client: KafkaClient,
    opts: FetcherOptions = {},
  ) {
    this.maxWaitMs = opts.maxWaitMs ?? 500
    this.minBytes = opts.minBytes ?? 1
    this.maxBytes = opts.maxBytes ?? 52_428_800
    this.partitionMaxBytes = opts.partitionMaxBytes ?? 1_048_576
    this.reset = opts.autoOffsetReset ?? 'latest'
    this.onOffsetReset = opts.onOffsetReset
    this.readCommitted = opts.isolationLevel === 'read_committed'
  }

  /** Replaces the assigned partitions and their positions. */
  assign(positions: readonly TopicPartitionOffset[]): void {
    this.epoch++
    this.cursors = new Map(positions.map((p) => [keyOf(p.topic, p.partition), { ...p }]))
  }

  /** The assigned partitions with their positions (the next offset each poll asks for). */
  positions(): TopicPartitionOffset[] {
    return [...this.cursors.values()].map((c) => ({ ...c }))
  }

  position(topic: string, partition: number): number | undefined {
    return this.cursors.get(keyOf(topic, partition))?.offset
  }

  /** Sets the next offset to fetch for an assigned partition. */
  seek(topic: string, partition: number, offset: number): void {
    const c = this.cursors.get(keyOf(topic, partition))
    if (!c) throw new ClientError('INVALID_REQUEST', `${topic}-${partition} is not assigned`)
    c.offset = offset
  }

  /**
   * One Fetch round over every assigned partition. Resolves early with [] when signal aborts; the
   * answers still in flight are then dropped and positions stay where they were.
   */
  async poll(signal?: AbortSignal): Promise<FetchedPartition[]> {
    if (this.cursors.size === 0 || signal?.aborted) return []
    const epoch = this.epoch
    const round = this.fetchAll(epoch, () => signal?.aborted === true)
    if (!signal) return round
    let onAbort: (() => void) | undefined
    const aborted = new Promise<FetchedPartition[]>((resolve) => {
      onAbort = () => resolve([])
      signal.addEventListener('abort', onAbort, { once: true })
    })
    round.catch(() => {}) // a failure after an abort has nobody left to tell
    try {
      return await Promise.race([round, aborted])
    } finally {
      signal.removeEventListener('abort', onAbort!)
    }
  }

  private async fetchAll(epoch: number, cancelled: () => boolean): Promise<FetchedPartition[]> {
    try {
      const byLeader = await this.leaders()
      const answers = await Promise.all([...byLeader].map(([nodeId, cursors]) => this.fetchFrom(nodeId, cursors)))
      if (cancelled() || epoch !== this.epoch) return []
      // Positions move only once every answer decoded, so a failure loses no records.
      const out: FetchedPartition[] = []
      const moves: Array<[Cursor, number]> = []
      for (const a of answers) out.push(...(await this.apply(a.version, a.res, a.ids, moves)))
      for (const [c, offset] of moves) c.offset = offset
      this.failedRounds = 0
      return out
    } catch (err) {
      if (!(err instanceof ClientError) || !err.retriable || ++this.failedRounds >= MAX_FAILED_ROUNDS) throw err
      this.staleMetadata = true
      await new Promise((r) => setTimeout(r, Math.min(1000, 100 * this.failedRounds)))
      return []
    }
  }

  /** The assigned partitions grouped by leader, fetching metadata when it is stale or missing. */
  private async leaders(): Promise<Map<number, Cursor[]>> {
    const topics = [...new Set([...this.cursors.values()].map((c) => c.topic))]
    const md = await this.client.metadata(topics, { refresh: this.staleMetadata })
    this.staleMetadata = false
    const byLeader = new Map<number, Cursor[]>()
    for (const c of this.cursors.values()) {
      const t = md.topics.get(c.topic)
      if (!t || t.error === 'UNKNOWN_TOPIC_OR_PARTITION')
        throw new ClientError('UNKNOWN_TOPIC_OR_PARTITION', `topic ${c.topic} does not exist`)
      const p = t.partitions.find((x) => x.partition === c.partition)
      if (!p) throw new ClientError('UNKNOWN_TOPIC_OR_PARTITION', `partition ${c.topic}-${c.partition} does not exist`)
      if (p.leader < 0) {
        this.staleMetadata = true
        continue
      }
      const list = byLeader.get(p.leader) ?? []
      list.push(c)
      byLeader.set(p.leader, list)
    }
    if (byLeader.size === 0) await new Promise((r) => setTimeout(r, 200)) // every leader unknown: wait for an election
    return byLeader
  }

  private async fetchFrom(nodeId: number, cursors: Cursor[]) {
    const md = await this.client.metadata([...new Set(cursors.map((c) => c.topic))])
    const ids = new Map<string, string>() // topic id → name (Fetch v13+ names topics by id)
    const byTopic = new Map<string, Cursor[]>()
    for (const c of cursors) {
      const list = byTopic.get(c.topic) ?? []
      list.push(c)
      byTopic.set(c.topic, list)
    }
    let version = 0
    const body = (v: number): Encodable<FetchRequestData> => {
      version = v
      return {
        replicaId: -1,
        maxWaitMs: this.maxWaitMs,
        minBytes: this.minBytes,
        maxBytes: this.maxBytes,
        isolationLevel: this.readCommitted ? 1 : 0,
        sessionId: 0,
        sessionEpoch: -1, // no fetch session (KIP-227): every request lists every partition
        topics: [...byTopic].map(([topic, list]) => {
          const topicId = md.topics.get(topic)?.topicId ?? ''
          ids.set(topicId, topic)
          return {
            topic,
            topicId,
            partitions: list.map((c) => ({
              partition: c.partition,
              currentLeaderEpoch: -1,
              fetchOffset: c.offset,
              lastFetchedEpoch: -1,
              logStartOffset: -1,
              partitionMaxBytes: this.partitionMaxBytes,
            })),
          }
        }),
        forgottenTopicsData: [],
        rackId: '',
      }
    }
    const res = await this.client.request(FetchRequest, FetchResponse, body, {
      nodeId,
      timeoutMs: this.client.requestTimeoutMs + this.maxWaitMs,
    })
    return { version, res, ids }
  }

  /** Decodes one broker's answer; the new positions go to `moves`. Resets happen at once. */
  private async apply(
    version: number,
    res: FetchResponseData,
    ids: Map<string, string>,
    moves: Array<[Cursor, number]>,
  ): Promise<FetchedPartition[]> {
    throwIfError(res.errorCode ?? 0, 'Fetch')
    const out: FetchedPartition[] = []
    for (const t of res.responses) {
      const topic = version >= 13 ? ids.get(t.topicId) : t.topic
      if (topic === undefined) continue
      for (const p of t.partitions) {
        const c = this.cursors.get(keyOf(topic, p.partitionIndex))
        if (!c) continue
        const error = p.errorCode === 0 ? null : errorName(p.errorCode)
        if (error === 'OFFSET_OUT_OF_RANGE') {
          await this.resetOffset(c)
          continue
        }
        if (error !== null && STALE_METADATA.has(error)) {
          this.staleMetadata = true
          continue
        }
        throwIfError(p.errorCode, `Fetch ${topic}-${p.partitionIndex}`)
        const aborted = this.readCommitted ? (p.abortedTransactions ?? []) : null
        const { records, nextOffset } = decodeRecords(topic, p.partitionIndex, p.records ?? Buffer.alloc(0), c.offset, aborted)
        moves.push([c, nextOffset])
        out.push({
          topic,
          partition: p.partitionIndex,
          records,
          nextOffset,
          highWatermark: p.highWatermark,
          lastStableOffset: p.lastStableOffset,
        })
      }
    }
    return out
  }

  private async resetOffset(c: Cursor): Promise<void> {
    if (this.reset === 'none') {
      throw new ClientError(
        'OFFSET_OUT_OF_RANGE',
        `offset ${c.offset} of ${c.topic}-${c.partition} is out of range and auto.offset.reset is none`,
      )
    }
    const spec = this.reset === 'earliest' ? OffsetSpec.Earliest : OffsetSpec.Latest
    const to = (await listOffsets(this.client, c.topic, [c.partition], spec, this.readCommitted)).get(c.partition)
    if (to === undefined) return
    const from = c.offset
    c.offset = to
    this.onOffsetReset?.({ topic: c.topic, partition: c.partition }, from, to, this.reset)
  }
}

/**
 * The records at or after `position` in one partition's fetched bytes, and the offset after the
 * last complete batch (position itself when there is none). `aborted` null: read_uncommitted, every
 * data record is returned; otherwise the aborted transactions of the Fetch response, whose records
 * are dropped (read_committed, see the header).
 */
export function decodeRecords(
  topic: string,
  partition: number,
  buf: Buffer,
  position: number,
  aborted: readonly AbortedTransaction[] | null = null,
): { records: ConsumedRecord[]; nextOffset: number } {
  const records: ConsumedRecord[] = []
  let nextOffset = position
  const filter = aborted === null ? null : new AbortedFilter(aborted)
  try {
    for (const h of iterateBatches(buf)) {
      const last = h.baseOffset + h.lastOffsetDelta
      if (!batchCrcMatches(buf, h.position, h.sizeBytes)) {
        throw new ClientError('CORRUPT_MESSAGE', `${topic}-${partition}: batch at offset ${h.baseOffset} fails its CRC check`)
      }
      // Every batch goes through the filter, in order, even one before the position: a marker there still ends its transaction.
      const skip = filter?.skips(buf, h) === true
      if (last < position) continue
      if (!h.isControl && !skip) {
        try {
          for (const r of iterateRecords(buf, h.position)) {
            if (r.offset < position) continue
            records.push({ topic, partition, offset: r.offset, timestamp: r.timestamp, key: r.key, value: r.value, headers: r.headers })
          }
        } catch (err) {
          if (err instanceof KafkaError && err.errorName === 'UNSUPPORTED_COMPRESSION_TYPE') {
            const codec = CODEC_NAMES[h.compression] ?? `codec ${h.compression}`
            throw new ClientError(
              'UNSUPPORTED_COMPRESSION_TYPE',
              `${topic}-${partition}: the batch at offset ${h.baseOffset} is ${codec}-compressed, which this client cannot decode`,
            )
          }
          throw err
        }
      }
      nextOffset = last + 1
    }
  } catch (err) {
    if (err instanceof KafkaError) throw new ClientError(err.errorName, `${topic}-${partition}: ${err.message}`)
    throw err
  }
  return { records, nextOffset }
}

/**
 * read_committed's bookkeeping over one partition's batches, in offset order (Kafka's
 * CompletedFetch): the aborted transactions not reached yet, by first offset, and the producers
 * whose aborted transaction is open at the current batch.
 */
export class AbortedFilter {
  private readonly pending: AbortedTransaction[]
  private next = 0
  private readonly open = new Set<number>()

  constructor(aborted: readonly AbortedTransaction[]) {
    this.pending = [...aborted].sort((a, b) => a.firstOffset - b.firstOffset)
  }

  /** Whether the batch's records belong to an aborted transaction (control batches end one). */
  skips(buf: Buffer, h: BatchHeader): boolean {
    if (h.producerId < 0) return false
    const last = h.baseOffset + h.lastOffsetDelta
    while (this.next < this.pending.length && this.pending[this.next]!.firstOffset <= last) {
      this.open.add(this.pending[this.next]!.producerId)
      this.next++
    }
    if (h.isControl) {
      if (readMarker(buf, h)?.commit === false) this.open.delete(h.producerId)
      return true
    }
    return h.isTransactional && this.open.has(h.producerId)
  }
}
