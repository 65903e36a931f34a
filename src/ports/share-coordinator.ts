// The share coordinator as the request handlers reach it (RPCs 83–87 and FindCoordinator key type
// 2): the ShareStatePersister operations on the keys this broker coordinates — answered
// NOT_COORDINATOR when it does not lead the key's `__share_group_state` partition,
// COORDINATOR_LOAD_IN_PROGRESS while that partition is loading — and where a key lives.
// coordinator/share/share-coordinator.ts implements it. The forwarding persister (the one other
// parts use) is coordinator/share/persister.ts.
import type { SharePartitionKey, ShareStatePersister } from './shares.js'

export interface ShareCoordinatorService extends ShareStatePersister {
  /** The `__share_group_state` partition that holds the key (abs(javaHash(key string)) % partitions). */
  partitionFor(key: SharePartitionKey): number
  /** The topic exists once this resolves; COORDINATOR_NOT_AVAILABLE when it cannot be created. */
  ensureCoordinatorTopic(): Promise<void>
}

/** 22 characters of base64url that decode to 16 bytes: a Kafka Uuid as the protocol shows it. */
const UUID_TEXT = /^[A-Za-z0-9_-]{22}$/

/**
 * A FindCoordinator key of type 2, "groupId:topicId:partition", as Kafka's SharePartitionKey
 * validates it: three parts, a non-empty group id, a topic id, a partition ≥ 0; else a reason.
 */
export function parseShareCoordinatorKey(key: string): SharePartitionKey | string {
  const parts = key.split(':')
  if (parts.length !== 3) return `share coordinator key "${key}" is not groupId:topicId:partition`
  const [groupId, topicId, partition] = parts as [string, string, string]
  if (groupId.length === 0) return 'the group id of a share coordinator key is empty'
  if (!UUID_TEXT.test(topicId) || Buffer.from(topicId, 'base64url').length !== 16) return `"${topicId}" is not a topic id`
  if (!/^\d{1,10}$/.test(partition) || Number(partition) > 2147483647) return `"${partition}" is not a partition`
  return { groupId, topicId, partition: Number(partition) }
}
