// The partitions this broker hosts, and the produce/fetch/list-offsets paths over their logs.
//
// On a single node every hosted partition is led here with leader epoch 0, the ISR is this broker
// alone, and the high watermark follows the log end offset as soon as an append completes. The
// cluster issue adds followers; the shape (leader epoch checks, HW ≤ LEO, reads bounded by HW)
// is already the one replication needs.
import { KafkaError } from '../protocol/errors.js'
import { type BatchHeader, validateProducedBatches } from '../protocol/records/batch.js'
import type { LogConfig } from '../storage/log-config.js'
import type { LogManager } from '../storage/log-manager.js'
import type { PartitionLog } from '../storage/partition-log.js'
import type { Clock } from '../util/clock.js'
import type { Logger } from '../util/logger.js'
import { AppendWaiters } from './append-waiters.js'

export function partitionKey(topic: string, partition: number): string {
  // ':' cannot appear in a topic name, so the key is unambiguous.
  return `${topic}:${partition}`
}

export class Partition {
  leaderEpoch = 0

  constructor(
    readonly topic: string,
    readonly index: number,
    readonly topicId: string,
    readonly log: PartitionLog,
  ) {}

  get key(): string {
    return partitionKey(this.topic, this.index)
  }

  /** FENCED_LEADER_EPOCH / UNKNOWN_LEADER_EPOCH when the client's view of the leader is stale or ahead. */
  checkLeaderEpoch(currentLeaderEpoch: number): void {
    if (currentLeaderEpoch < 0 || currentLeaderEpoch === this.leaderEpoch) return
    throw new KafkaError(currentLeaderEpoch < this.leaderEpoch ? 'FENCED_LEADER_EPOCH' : 'UNKNOWN_LEADER_EPOCH')
  }
}

export interface AppendResult {
  baseOffset: number
  logAppendTimeMs: number
  logStartOffset: number
}

export interface PartitionRead {
  records: Buffer
  highWatermark: number
  logStartOffset: number
}

export class ReplicaManager {
  private readonly partitions = new Map<string, Partition>()
  readonly waiters: AppendWaiters

  constructor(
    private readonly logs: LogManager,
    clock: Clock,
    private readonly logger: Logger,
  ) {
    this.waiters = new AppendWaiters(clock)
  }

  /** Registers the logs found on disk at start-up (the controller then reconciles them with the store). */
  loadExisting(): void {
    for (const log of this.logs.all()) {
      const p = new Partition(log.topic, log.partition, log.topicId ?? '', log)
      log.highWatermark = log.logEndOffset
      this.partitions.set(p.key, p)
    }
  }

  get(topic: string, partition: number): Partition | undefined {
    return this.partitions.get(partitionKey(topic, partition))
  }

  /** The partition, or UNKNOWN_TOPIC_OR_PARTITION. */
  require(topic: string, partition: number): Partition {
    const p = this.partitions.get(partitionKey(topic, partition))
    if (!p) throw new KafkaError('UNKNOWN_TOPIC_OR_PARTITION')
    return p
  }

  async createPartition(topic: string, index: number, topicId: string, config?: Partial<LogConfig>): Promise<Partition> {
    const existing = this.get(topic, index)
    if (existing) {
      if (existing.topicId !== topicId) throw new KafkaError('INCONSISTENT_TOPIC_ID', `${topic}-${index} belongs to another topic id`)
      return existing
    }
    const log = await this.logs.create(topic, index, topicId, config)
    log.highWatermark = log.logEndOffset
    const p = new Partition(topic, index, topicId, log)
    this.partitions.set(p.key, p)
    return p
  }

  async deletePartition(topic: string, index: number): Promise<void> {
    const key = partitionKey(topic, index)
    if (!this.partitions.delete(key)) return
    this.waiters.notify(key)
    await this.logs.delete(topic, index)
  }

  /**
   * Validates a producer's records (v2 batches, CRC, size) and appends them. The log assigns the
   * offsets; the high watermark moves to the new log end and long-polling fetches wake.
   */
  async append(p: Partition, records: Buffer, maxBatchBytes: number): Promise<AppendResult> {
    const batches: BatchHeader[] = validateProducedBatches(records, { maxBatchBytes })
    const info = await p.log.append(records, batches, p.leaderEpoch)
    p.log.highWatermark = p.log.logEndOffset
    this.waiters.notify(p.key)
    return { baseOffset: info.baseOffset, logAppendTimeMs: info.logAppendTimeMs, logStartOffset: p.log.logStartOffset }
  }

  /** Whole batches from fetchOffset, bounded by maxBytes (at least one batch when minOneBatch) and the HW. */
  async read(p: Partition, fetchOffset: number, maxBytes: number, minOneBatch: boolean): Promise<PartitionRead> {
    const hw = p.log.highWatermark
    const res = await p.log.read(fetchOffset, maxBytes, hw, minOneBatch)
    return { records: res.records, highWatermark: hw, logStartOffset: p.log.logStartOffset }
  }

  /**
   * ListOffsets for one partition. Special timestamps: -2 earliest, -1 latest (the HW; there are
   * no transactions yet, so the LSO equals it), -3 the record with the largest timestamp (KIP-734),
   * -4 earliest local (KIP-1005; no tiered storage, so the log start).
   */
  async listOffset(p: Partition, timestamp: number): Promise<{ offset: number; timestamp: number }> {
    switch (timestamp) {
      case -2:
      case -4:
        return { offset: p.log.logStartOffset, timestamp: -1 }
      case -1:
        return { offset: p.log.highWatermark, timestamp: -1 }
      case -3:
        return (await p.log.maxTimestampAndOffset()) ?? { offset: -1, timestamp: -1 }
      default: {
        if (timestamp < 0) throw new KafkaError('INVALID_REQUEST', `unsupported ListOffsets timestamp ${timestamp}`)
        const found = await p.log.offsetForTimestamp(timestamp)
        if (!found || found.offset >= p.log.highWatermark) return { offset: -1, timestamp: -1 }
        return found
      }
    }
  }

  all(): Iterable<Partition> {
    return this.partitions.values()
  }

  async close(): Promise<void> {
    this.logger.debug('closing logs', { partitions: this.partitions.size })
    await this.logs.close()
  }
}
