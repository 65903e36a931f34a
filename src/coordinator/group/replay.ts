// What loading one `__consumer_offsets` partition replays, record by record in log order (the
// LoadSink of persistence.ts): each classic group's last record, every group's live offsets, the
// pending transactional offsets per group and producer (by the rules of txn-offsets.ts), and the
// records of KIP-848 consumer groups and KIP-932 share groups for their own replays. The group
// coordinator installs the result once the load is complete (group-coordinator.ts).
import type { Logger } from '../../util/logger.js'
import { ConsumerGroupReplay } from './consumer/group-log.js'
import { OffsetTable } from './offset-table.js'
import type { CommittedOffset, GroupSnapshot, LoadSink } from './persistence.js'
import type { ShareGroupReplay } from './share/records.js'
import { dropPending, materialize } from './txn-offsets.js'

/**
 * What a load replays: the last group record, the live offsets of every group, and the pending
 * transactional offsets per group and producer — by the rules of txn-offsets.ts.
 */
export class PartitionReplay {
  readonly snapshots = new Map<string, GroupSnapshot | null>()
  readonly offsets = new Map<string, OffsetTable>()
  /** group id → producer id → pending offsets. */
  readonly pending = new Map<string, Map<number, OffsetTable>>()
  /** producer id → the groups it has pending offsets in. */
  private readonly open = new Map<number, Set<string>>()
  /** The consumer-protocol groups' records (consumer/group-log.ts). */
  readonly consumer = new ConsumerGroupReplay()

  constructor(
    readonly shares: ShareGroupReplay,
    private readonly logger: Logger,
  ) {}

  readonly sink: LoadSink = {
    consumerGroupRecord: (_groupId, record) => this.consumer.apply(record.key, record.value),
    shareGroupRecord: (key, value) => {
      try {
        this.shares.apply(key, value)
      } catch (err) {
        this.logger.warn('skipping an undecodable share group record', { err })
      }
    },
    group: (groupId, snapshot) => {
      this.snapshots.set(groupId, snapshot)
      // A deleted group's open transactions lose their offsets (as the coordinator drops them).
      if (snapshot === null) this.pending.delete(groupId)
    },
    offset: (groupId, topic, partition, value, recordOffset) => {
      const table = this.table(groupId)
      if (value) table.set(topic, partition, withOffset(value, recordOffset))
      else {
        table.delete(topic, partition)
        const pending = this.pending.get(groupId)
        if (pending) dropPending(pending, topic, partition)
      }
    },
    txnOffset: (producerId, groupId, topic, partition, value, recordOffset) => {
      let byProducer = this.pending.get(groupId)
      if (!byProducer) this.pending.set(groupId, (byProducer = new Map()))
      let table = byProducer.get(producerId)
      if (!table) byProducer.set(producerId, (table = new OffsetTable()))
      table.set(topic, partition, withOffset(value, recordOffset))
      let groups = this.open.get(producerId)
      if (!groups) this.open.set(producerId, (groups = new Set()))
      groups.add(groupId)
    },
    txnMarker: (producerId, commit) => {
      for (const groupId of this.open.get(producerId) ?? []) {
        const byProducer = this.pending.get(groupId)
        const table = byProducer?.get(producerId)
        if (!byProducer || !table) continue
        byProducer.delete(producerId)
        if (byProducer.size === 0) this.pending.delete(groupId)
        if (commit) materialize(this.table(groupId), table)
      }
      this.open.delete(producerId)
    },
  }

  private table(groupId: string): OffsetTable {
    let table = this.offsets.get(groupId)
    if (!table) this.offsets.set(groupId, (table = new OffsetTable()))
    return table
  }
}

const withOffset = (value: CommittedOffset, recordOffset: number): CommittedOffset => ({ ...value, recordOffset })
