// Moving a group between the classic and the consumer protocol (Kafka 4's
// `group.consumer.migration.policy`, bidirectional; GroupMetadataManager.convertToConsumerGroup and
// convertToClassicGroup). The group coordinator calls these; the members' side of a mixed group
// is consumer/classic-members.ts.
//
// - upgrade: the classic group's members move into a consumer group (held JoinGroup/SyncGroup
//   answered REBALANCE_IN_PROGRESS, as Kafka completes their futures), and the classic group stays
//   as the Empty carrier of the group's committed offsets; its metadata is tombstoned, as Kafka
//   writes it, before the consumer group's records (the write order is the call order).
// - downgrade: a consumer group whose members left are all classic becomes a classic group at the
//   group epoch as generation, with the carrier's offsets and pending transactional offsets, and
//   rebalances at once so its members rejoin as a classic group's.
import type { Logger } from '../../util/logger.js'
import type { Clock } from '../../util/clock.js'
import { ErrorCode } from '../../protocol/errors.js'
import type { DurableConsumerGroups } from './consumer/durable-groups.js'
import type { ClassicGroup } from './group.js'
import type { GroupPersistence, GroupSnapshot } from './persistence.js'
import type { Rebalancer } from './rebalance.js'
import type { TxnOffsets } from './txn-offsets.js'

export interface MigrationEnv {
  clock: Clock
  logger: Logger
  persistence: GroupPersistence
  groups: Map<string, ClassicGroup>
  rb: Rebalancer
  txnOffsets: TxnOffsets
  durable: DurableConsumerGroups
  /** A classic group rebuilt from a snapshot: Stable, its members' session timers armed. */
  restoreGroup(groupId: string, snapshot: GroupSnapshot): ClassicGroup
}

export function upgradeClassic(env: MigrationEnv, classic: ClassicGroup): void {
  env.rb.shutDownGroup(classic, ErrorCode.REBALANCE_IN_PROGRESS.code)
  env.durable.upgrade(classic)
  for (const id of [...classic.members.keys()]) classic.remove(id)
  classic.protocolName = null
  classic.leaderId = null
  classic.subscribedTopics = new Set()
  // Straight to Empty, whatever the state: nothing of the classic protocol remains to finish.
  classic.state = 'Empty'
  classic.currentStateTimestampMs = env.clock.now()
  env.persistence.storeGroup(classic.groupId, null).catch((err: unknown) => {
    env.logger.warn('failed to tombstone an upgraded classic group', { group: classic.groupId, err })
  })
}

/** True when the consumer group became a classic one. */
export function downgradeIfClassicOnly(env: MigrationEnv, groupId: string): boolean {
  const snapshot = env.durable.downgrade(groupId)
  if (snapshot === null) return false
  const carrier = env.groups.get(groupId)
  const group = env.restoreGroup(groupId, snapshot)
  if (carrier !== undefined) {
    for (const e of carrier.offsets.entries()) group.offsets.set(e.topic, e.partition, e.value)
    for (const [producerId, t] of carrier.pendingTxn) group.pendingTxn.set(producerId, t)
    env.txnOffsets.forget(groupId)
  }
  env.groups.set(groupId, group)
  env.txnOffsets.adopt(group)
  env.rb.prepareRebalance(group, 'downgraded from a consumer group')
  return true
}
