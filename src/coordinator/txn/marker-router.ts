// Where each transaction marker goes (the coordinator's MarkerSender): the partitions' leaders as
// the metadata names them — this broker's own through its TxnMarkerWriter, the others' as one
// WriteTxnMarkers per leader. A partition whose topic (or partition) no longer exists is dropped:
// answered 0, as Kafka's marker channel removes the partitions of deleted topics from the
// transaction. A partition without a live leader yet is answered NOT_LEADER_OR_FOLLOWER, so the
// coordinator retries it and resolves the leader again then.
import type { MarkerPartition, MarkerResult, TxnMarker, TxnMarkerWriter } from '../../ports/transactions.js'
import { ErrorCode } from '../../protocol/errors.js'
import type { Logger } from '../../util/logger.js'
import type { MarkerSender } from './txn-coordinator.js'

export interface MarkerRouterOptions {
  nodeId: number
  /** The partition's leader (-1: none now); undefined when the partition does not exist. */
  leaderOf: (topic: string, partition: number) => number | undefined
  local: TxnMarkerWriter
  remote: (nodeId: number, marker: TxnMarker, partitions: MarkerPartition[]) => Promise<MarkerResult[]>
  logger: Logger
}

export class MarkerRouter implements MarkerSender {
  constructor(private readonly opts: MarkerRouterOptions) {}

  async send(marker: TxnMarker, partitions: MarkerPartition[]): Promise<MarkerResult[]> {
    const results: MarkerResult[] = []
    const byLeader = new Map<number, MarkerPartition[]>()
    for (const p of partitions) {
      const leader = this.opts.leaderOf(p.topic, p.partition)
      if (leader === undefined) {
        this.opts.logger.info('dropping the transaction marker of a deleted partition', {
          topic: p.topic,
          partition: p.partition,
          producerId: marker.producerId,
        })
        results.push({ ...p, errorCode: 0 })
      } else if (leader < 0) {
        results.push({ ...p, errorCode: ErrorCode.NOT_LEADER_OR_FOLLOWER.code })
      } else {
        let list = byLeader.get(leader)
        if (!list) byLeader.set(leader, (list = []))
        list.push(p)
      }
    }
    const sent = await Promise.all(
      [...byLeader].map(([leader, list]) =>
        leader === this.opts.nodeId ? this.opts.local.writeMarkers(marker, list) : this.opts.remote(leader, marker, list),
      ),
    )
    for (const r of sent) results.push(...r)
    return results
  }
}
