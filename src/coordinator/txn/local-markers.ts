// The TxnMarkerWriter of one broker (ports/transactions.ts): writes a transaction marker to the
// partitions this broker leads — what WriteTxnMarkers does on a partition leader, and what the
// local coordinator calls for its own partitions. Each partition's marker is one control batch
// appended by the replica (ReplicaService.writeTxnMarker, acknowledged by the in-sync replicas);
// on a `__consumer_offsets` partition the group coordinator then commits or drops the producer's
// pending transactional offsets there (GroupService.completeTransaction), as Kafka's
// GroupCoordinator.onTransactionCompleted runs after the marker is written. Partitions are
// written concurrently; each result carries its own code (NOT_LEADER_OR_FOLLOWER when not led
// here, UNKNOWN_TOPIC_OR_PARTITION when not hosted, the replica's refusals otherwise).
import type { GroupService } from '../../ports/groups.js'
import type { ReplicaService } from '../../ports/replicas.js'
import type { MarkerPartition, MarkerResult, TxnMarker, TxnMarkerWriter } from '../../ports/transactions.js'
import { toErrorCode } from '../../protocol/errors.js'
import type { Logger } from '../../util/logger.js'
import { OFFSETS_TOPIC } from '../group/offsets-topic.js'

export interface LocalMarkerWriterOptions {
  replicas: Pick<ReplicaService, 'require' | 'writeTxnMarker'>
  groups: Pick<GroupService, 'completeTransaction'>
  /** How long one marker waits for the in-sync replicas (Kafka: request.timeout.ms). */
  timeoutMs: number
  logger: Logger
}

export class LocalTxnMarkerWriter implements TxnMarkerWriter {
  constructor(private readonly opts: LocalMarkerWriterOptions) {}

  writeMarkers(marker: TxnMarker, partitions: MarkerPartition[]): Promise<MarkerResult[]> {
    return Promise.all(partitions.map((p) => this.writeOne(marker, p)))
  }

  private async writeOne(marker: TxnMarker, at: MarkerPartition): Promise<MarkerResult> {
    try {
      const p = this.opts.replicas.require(at.topic, at.partition)
      await this.opts.replicas.writeTxnMarker(p, marker, this.opts.timeoutMs)
      if (at.topic === OFFSETS_TOPIC) this.opts.groups.completeTransaction(at.partition, marker.producerId, marker.commit)
      return { ...at, errorCode: 0 }
    } catch (err) {
      const errorCode = toErrorCode(err)
      this.opts.logger.debug('transaction marker not written', { topic: at.topic, partition: at.partition, errorCode, err })
      return { ...at, errorCode }
    }
  }
}
