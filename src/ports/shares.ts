// The share-group ports (KIP-932): what the parts of a share group need of each other.
//
//   group coordinator (coordinator/group/, ShareGroupHeartbeat/Describe, the offsets admin APIs)
//   share-partition leaders (share/, ShareFetch/ShareAcknowledge: locks, delivery counts)
//   share coordinator (coordinator/share/, the `__share_group_state` topic, RPCs 83–87)
//
// A share-partition is (group, topic id, partition). Its in-flight state lives in memory at the
// partition's leader; its durable state — the start offset and the state of the records past it
// whose delivery is complete or was attempted — is kept by the share coordinator that leads the
// `__share_group_state` partition of the key, and read again by a new partition leader.
// ShareStatePersister is the one way to reach it: the broker's implementation calls the local share
// coordinator when this broker leads the key's partition, else the owner over the inter-broker RPCs.

/** Kafka's record delivery states as the share coordinator stores them (WriteShareGroupState). */
export const DeliveryState = { AVAILABLE: 0, ACQUIRED: 1, ACKNOWLEDGED: 2, ARCHIVED: 4 } as const

/** Acknowledge types of ShareFetch/ShareAcknowledge. */
export const AcknowledgeType = { GAP: 0, ACCEPT: 1, RELEASE: 2, REJECT: 3, RENEW: 4 } as const

export interface SharePartitionKey {
  groupId: string
  /** The topic's id (22 characters of base64url, as the protocol decodes it). */
  topicId: string
  partition: number
}

/** `${groupId}:${topicId}:${partition}`, the share coordinator's key (FindCoordinator key type 2). */
export function sharePartitionKeyString(k: SharePartitionKey): string {
  return `${k.groupId}:${k.topicId}:${k.partition}`
}

/** A run of offsets sharing one state and delivery count. */
export interface ShareStateBatch {
  firstOffset: number
  lastOffset: number
  /** DeliveryState: AVAILABLE, ACKNOWLEDGED or ARCHIVED (ACQUIRED is never stored). */
  deliveryState: number
  deliveryCount: number
}

/** Error codes are Kafka's; 0 = NONE. */
export interface ShareStateResult {
  errorCode: number
  errorMessage?: string | null
}

export interface ShareStateRead extends ShareStateResult {
  stateEpoch: number
  /** -1 when the share-partition has no state yet (not initialized). */
  startOffset: number
  stateBatches: ShareStateBatch[]
}

export interface ShareStateSummary extends ShareStateResult {
  stateEpoch: number
  leaderEpoch: number
  startOffset: number
  /** Records at or past the start offset whose delivery is complete (-1: unknown). */
  deliveryCompleteCount: number
}

export interface ShareStateWrite {
  stateEpoch: number
  /** The partition leader's epoch: a write with an older epoch than stored is FENCED_LEADER_EPOCH. */
  leaderEpoch: number
  /** -1: unchanged. */
  startOffset: number
  deliveryCompleteCount: number
  /** The batches whose state changed; they replace what is stored for their offsets. */
  stateBatches: ShareStateBatch[]
}

export interface ShareStatePersister {
  /** Creates (or resets, with a newer stateEpoch) a share-partition's state at startOffset. */
  initialize(key: SharePartitionKey, stateEpoch: number, startOffset: number): Promise<ShareStateResult>
  /** The stored state; startOffset -1 when none. leaderEpoch fences older leaders (FENCED_LEADER_EPOCH). */
  read(key: SharePartitionKey, leaderEpoch: number): Promise<ShareStateRead>
  /** Durable when it resolves with errorCode 0. FENCED_STATE_EPOCH when stateEpoch is older than the stored one. */
  write(key: SharePartitionKey, write: ShareStateWrite): Promise<ShareStateResult>
  /** Forgets the share-partition's state. */
  delete(key: SharePartitionKey): Promise<ShareStateResult>
  readSummary(key: SharePartitionKey, leaderEpoch: number): Promise<ShareStateSummary>
}

/** A share group's settings that the partition leaders apply (group configs over broker defaults). */
export interface ShareGroupSettings {
  /** share.record.lock.duration.ms (default group.share.record.lock.duration.ms, 30000). */
  recordLockDurationMs: number
  /** share.delivery.count.limit (default group.share.delivery.count.limit, 5). */
  deliveryCountLimit: number
  /** share.auto.offset.reset: 'latest' | 'earliest' | `by_duration:${ISO-8601 duration}`. */
  autoOffsetReset: string
  /** share.isolation.level: read_uncommitted | read_committed. */
  isolationLevel: 'read_uncommitted' | 'read_committed'
  /** errors.deadletterqueue.topic.name (KIP-1191); null: none. */
  deadLetterTopic: string | null
  /** errors.deadletterqueue.copy.record.enable: the record's key, value and headers go along. */
  deadLetterCopyRecord: boolean
  /** tributary.share.release.backoff.ms: a RELEASEd record is not handed out again before this. */
  releaseBackoffMs: number
  /** tributary.share.delivery.delay.ms: a record is not handed out before its timestamp plus this. */
  deliveryDelayMs: number
}

/** Kafka's defaults, and Tributary's for its own keys (no delay, no dead-letter topic). */
export const DEFAULT_SHARE_GROUP_SETTINGS: Readonly<ShareGroupSettings> = Object.freeze({
  recordLockDurationMs: 30_000,
  deliveryCountLimit: 5,
  autoOffsetReset: 'latest',
  isolationLevel: 'read_uncommitted',
  deadLetterTopic: null,
  deadLetterCopyRecord: false,
  releaseBackoffMs: 0,
  deliveryDelayMs: 0,
})

/** Where the partition leaders read a group's settings; the broker answers from the group configs. */
export type ShareGroupSettingsSource = (groupId: string) => ShareGroupSettings

/** A record given up (rejected, or past the delivery limit), for the dead-letter topic. */
export interface DeadLetter {
  groupId: string
  /** The dead-letter topic (ShareGroupSettings.deadLetterTopic). */
  topic: string
  source: { topic: string; partition: number; offset: number }
  deliveryCount: number
  reason: 'rejected' | 'delivery-limit'
  /** The record itself when deadLetterCopyRecord, else null. */
  record: { key: Buffer | null; value: Buffer | null; headers: Array<{ key: string; value: Buffer | null }>; timestamp: number } | null
}

/** Writes dead letters to their topic, wherever its partitions are led; resolves once stored. */
export interface DeadLetterSink {
  send(letters: DeadLetter[]): Promise<void>
}
