// One internal topic a coordinator keeps its state in — `__consumer_offsets` (group/offsets-topic.ts)
// and `__transaction_state` (txn/txn-log.ts) — and what both do with it alike, as Kafka's group
// and transaction coordinators do:
//
// - the topic is adopted as it exists or created on first use (ensureTopic(): once, concurrent
//   callers share the creation; a creation that loses a race adopts the winner's topic; a failure
//   is COORDINATOR_NOT_AVAILABLE and a later call tries again). An existing topic's own partition
//   count decides where a key lives (partitionCount()), so the mapping never moves;
// - appends are issued in call order (one issue chain for all partitions, each link issuing its
//   append synchronously once the topic exists), so the log holds them in the order the
//   coordinator made them; they complete concurrently, and reject with the replica layer's error
//   for the caller to map (storeErrorName() is the part of that mapping both coordinators share);
// - a partition is replayed from its log start to its log end as of the start of the load (not the
//   high watermark: a new leader's log is the partition's from now on), in chunks of whole batches
//   so memory stays bounded; a record (or batch) that does not decode is logged and skipped, batch
//   headers that do not parse end the load there (where the next batch starts is unknown), and an
//   error of the caller's own handlers propagates.
import type { TopicRecord } from '../ports/metadata-store.js'
import type { AppendPolicy, ReplicaService } from '../ports/replicas.js'
import type { TopicService, TopicSpec } from '../ports/topics.js'
import { type ErrorName, KafkaError } from '../protocol/errors.js'
import type { BatchHeader } from '../protocol/records/batch.js'
import { iterateBatches, iterateRecords } from '../protocol/records/iterator.js'
import type { Logger } from '../util/logger.js'

/** How many undecodable records of one partition are logged one by one before only counting. */
const MAX_SKIP_WARNINGS = 10

export interface InternalTopicOptions {
  name: string
  /** How log lines name it, e.g. 'offsets topic'. */
  label: string
  topics: Pick<TopicService, 'get' | 'create' | 'effectiveConfig'>
  replicas: Pick<ReplicaService, 'require' | 'append'>
  /** Used when the topic is created (and until it exists). */
  numPartitions: number
  replicationFactor: number
  /** The topic configs it is created with. */
  configs: Array<{ name: string; value: string }>
  logger: Logger
  /** Called once, when the topic is first found or created. */
  onAdopt?: (topic: TopicRecord) => void
}

export interface ReplayStats {
  records: number
  skipped: number
}

export interface PartitionReplay<T> {
  /** One record's key and value; a throw skips the record as undecodable. */
  decode(key: Buffer | null, value: Buffer | null): T
  /** A decoded record at `offset` of `batch`; what it throws propagates. */
  apply(decoded: T, offset: number, batch: BatchHeader): void
  /** A control batch (default: skipped); `skip` counts it as undecodable. */
  control?(records: Buffer, batch: BatchHeader, skip: (offset: number, reason: string) => void): void
}

/**
 * The codes both coordinators answer for an append error of their topic, as Kafka's
 * GroupMetadataManager and TransactionStateManager map them: the coordinator is unavailable (the
 * client retries) or gone (the client looks it up again); undefined for the other errors, which
 * each maps its own way.
 */
/**
 * Whether a coordinator told it leads one of its internal partitions at `leaderEpoch` must load it
 * (Kafka's onElection, the same for the transaction and share coordinators): an election of an
 * epoch not newer than the one last heard of is stale and ignored; a newer one of a partition this
 * coordinator owns or is loading keeps what is in memory (it led the partition throughout) and only
 * takes the epoch; otherwise the partition is (re)loaded.
 */
export function mustLoadOnElection(current: { epoch: number; state: string } | undefined, leaderEpoch: number): boolean {
  if (current && leaderEpoch <= current.epoch) return false
  if (current && (current.state === 'owned' || current.state === 'loading')) {
    current.epoch = leaderEpoch
    return false
  }
  return true
}

export function storeErrorName(err: unknown): 'COORDINATOR_NOT_AVAILABLE' | 'NOT_COORDINATOR' | undefined {
  if (!(err instanceof KafkaError)) return undefined
  switch (err.errorName as ErrorName) {
    case 'COORDINATOR_NOT_AVAILABLE':
    case 'UNKNOWN_TOPIC_OR_PARTITION':
    case 'NOT_ENOUGH_REPLICAS':
    case 'NOT_ENOUGH_REPLICAS_AFTER_APPEND':
    case 'REQUEST_TIMED_OUT':
      return 'COORDINATOR_NOT_AVAILABLE'
    case 'NOT_COORDINATOR':
    case 'NOT_LEADER_OR_FOLLOWER':
    case 'KAFKA_STORAGE_ERROR':
      return 'NOT_COORDINATOR'
    default:
      return undefined
  }
}

export class InternalTopic {
  /** The topic's partition count once found or created; until then the configured one. */
  private partitions: number
  private adopted: TopicRecord | undefined
  private creating: Promise<void> | undefined
  /** Resolves once every append asked for so far has been issued to the log (call order). */
  private issueTail: Promise<unknown> = Promise.resolve()

  constructor(private readonly opts: InternalTopicOptions) {
    this.partitions = opts.numPartitions
  }

  /** The partition count keys are placed by (the topic's own once it exists). */
  partitionCount(): number {
    if (!this.adopted) {
      const existing = this.opts.topics.get(this.opts.name)
      if (existing) this.adopt(existing)
    }
    return this.partitions
  }

  /** The topic exists once this resolves; COORDINATOR_NOT_AVAILABLE when it cannot be created. */
  ensureTopic(): Promise<void> {
    if (this.adopted) return Promise.resolve()
    const existing = this.opts.topics.get(this.opts.name)
    if (existing) {
      this.adopt(existing)
      return Promise.resolve()
    }
    this.creating ??= this.createTopic().finally(() => {
      this.creating = undefined
    })
    return this.creating
  }

  /** The topic as it is now (its configs may have changed since it was adopted). */
  current(): TopicRecord | undefined {
    return this.opts.topics.get(this.opts.name) ?? this.adopted
  }

  /** The topic's min.insync.replicas now (1 before it exists). */
  minInsyncReplicas(): number {
    const topic = this.current()
    return topic ? this.opts.topics.effectiveConfig(topic)['min.insync.replicas'] : 1
  }

  /**
   * Appends `batch` after every append asked for before it, once the topic exists, to the
   * partition `partitionOf` names then; resolves once the replica layer acknowledges it.
   */
  append(
    batch: Buffer,
    partitionOf: () => number,
    maxBatchBytes: () => number,
    policy: () => AppendPolicy,
  ): Promise<Awaited<ReturnType<ReplicaService['append']>>> {
    const { replicas, name } = this.opts
    const issued = this.issueTail
      .then(() => this.ensureTopic())
      .then(() => ({ done: replicas.append(replicas.require(name, partitionOf()), batch, maxBatchBytes(), policy()) }))
    this.issueTail = issued.catch(() => {})
    return issued.then((i) => i.done)
  }

  /**
   * Replays one partition led here (see the header). Rejects when this broker does not lead it or
   * its log cannot be read.
   */
  async replayPartition<T>(partition: number, chunkBytes: number, replay: PartitionReplay<T>): Promise<ReplayStats> {
    const { logger, label } = this.opts
    const p = this.opts.replicas.require(this.opts.name, partition)
    const end = p.log.logEndOffset
    const stats: ReplayStats = { records: 0, skipped: 0 }
    const skip = (offset: number, reason: string) => {
      stats.skipped++
      if (stats.skipped <= MAX_SKIP_WARNINGS) logger.warn(`skipping an undecodable record of the ${label}`, { partition, offset, reason })
    }
    const finish = () => {
      if (stats.skipped > MAX_SKIP_WARNINGS)
        logger.warn(`skipped undecodable records of the ${label}`, { partition, skipped: stats.skipped })
      return stats
    }
    let offset = p.log.logStartOffset
    while (offset < end) {
      const { records } = await p.log.read(offset, Math.max(1, chunkBytes), end, true)
      let next = offset
      // The iterators are stepped by hand so that only their failures count as bad records.
      const batches = iterateBatches(records)
      for (;;) {
        let b: IteratorResult<BatchHeader>
        try {
          b = batches.next()
        } catch (err) {
          logger.error(`${label} partition is unreadable from here; the rest is not loaded`, {
            partition,
            offset: next,
            error: err as Error,
          })
          return finish()
        }
        if (b.done) break
        const batch = b.value
        if (batch.baseOffset >= end) break
        const batchEnd = batch.baseOffset + batch.lastOffsetDelta + 1
        if (batchEnd <= offset) continue
        next = batchEnd
        if (batch.isControl) {
          replay.control?.(records, batch, skip)
          continue
        }
        const recs = iterateRecords(records, batch.position)
        for (;;) {
          let r: ReturnType<typeof recs.next>
          try {
            r = recs.next()
          } catch (err) {
            skip(batch.baseOffset, `batch [${batch.baseOffset}, ${batchEnd}): ${(err as Error).message}`)
            break
          }
          if (r.done) break
          const { offset: at, key, value } = r.value
          if (at < offset || at >= end) continue
          let decoded: T
          try {
            decoded = replay.decode(key, value)
          } catch (err) {
            skip(at, (err as Error).message)
            continue
          }
          stats.records++
          replay.apply(decoded, at, batch)
        }
      }
      if (next === offset) break // nothing more below the end
      offset = next
    }
    return finish()
  }

  private async createTopic(): Promise<void> {
    const { name, label, numPartitions, replicationFactor, configs, logger } = this.opts
    const spec: TopicSpec = { name, numPartitions, replicationFactor, assignments: [], configs }
    try {
      this.adopt(await this.opts.topics.create(spec, false))
      logger.info(`created the ${label}`, { topic: name, partitions: numPartitions, replicationFactor })
    } catch (err) {
      // Lost a race with another creation: that topic is the one.
      const now = this.opts.topics.get(name)
      if (now) {
        this.adopt(now)
        return
      }
      logger.warn(`cannot create the ${label}`, { topic: name, error: err as Error })
      throw new KafkaError('COORDINATOR_NOT_AVAILABLE', `cannot create ${name}: ${(err as Error).message}`)
    }
  }

  private adopt(topic: TopicRecord): void {
    if (this.adopted) return
    this.adopted = topic
    this.partitions = topic.partitions
    if (topic.partitions !== this.opts.numPartitions) {
      this.opts.logger.warn(`the ${this.opts.label} exists with another partition count than configured; using its own`, {
        partitions: topic.partitions,
        configured: this.opts.numPartitions,
      })
    }
    this.opts.onAdopt?.(topic)
  }
}
