// The offsets admin APIs of share groups (KIP-932; Kafka's GroupCoordinatorService
// describeShareGroupOffsets / alterShareGroupOffsets / deleteShareGroupOffsets): a share group's
// "offset" per partition is the share-partition's start offset, kept by the share coordinator and
// reached through the ShareStatePersister port (ports/shares.ts).
//
// - Describe (DescribeShareGroupOffsets v0–1): the start offset and leader epoch of each
//   partition asked for (every partition with share state when topics is null), from
//   readSummary; -1 where there is no state yet. v1 adds the lag, as Kafka computes it: the
//   partition's high watermark − start offset − the records past it whose delivery is complete
//   (-1 when any of them is unknown). Unknown topics and partitions: UNKNOWN_TOPIC_OR_PARTITION.
// - Alter (AlterShareGroupOffsets v0): only while the group has no member (NON_EMPTY_GROUP), a
//   group id not yet known creates an empty share group (as Kafka, so offsets can be set before the
//   first consumer starts); each partition's state is initialized at the given start offset with
//   a state epoch one above the stored one, which fences the state any older partition leader
//   still holds.
// - Delete (DeleteShareGroupOffsets v0): only an existing, empty share group (GROUP_ID_NOT_FOUND,
//   NON_EMPTY_GROUP); whole topics: the share state of each of its partitions is deleted; a topic
//   without share state for the group is UNKNOWN_TOPIC_OR_PARTITION, as Kafka.
// A group id of a classic or consumer group is GROUP_ID_NOT_FOUND ("… is not a share group.").
// The group's records (records.ts type 15: the topics with share state) are written after a
// change, so DeleteGroups and a describe of every topic still find them after a failover.
import type {
  AlterShareGroupOffsetsRequestData,
  AlterShareGroupOffsetsResponseData,
} from '../../../protocol/messages/91-alter-share-group-offsets.js'
import type {
  DeleteShareGroupOffsetsRequestData,
  DeleteShareGroupOffsetsResponseData,
} from '../../../protocol/messages/92-delete-share-group-offsets.js'
import type {
  DescribeShareGroupOffsetsRequestData,
  DescribeShareGroupOffsetsResponseData,
} from '../../../protocol/messages/90-describe-share-group-offsets.js'
import { ErrorCode, type ErrorName } from '../../../protocol/errors.js'
import { ZERO_UUID } from '../../../protocol/primitives/uuid.js'
import type { ShareStatePersister } from '../../../ports/shares.js'
import type { TopicSource } from '../consumer/consumer-groups.js'
import type { ShareGroup, ShareGroups } from './share-groups.js'

type DescribedGroup = DescribeShareGroupOffsetsResponseData['groups'][number]
type DescribedTopic = DescribedGroup['topics'][number]

/** The high watermark of a partition, or null when not known here (its lag is then -1). */
export type HighWatermarkSource = (topic: string, partition: number) => number | null

export interface ShareOffsetsEnv {
  shares: ShareGroups
  topics: TopicSource
  persister: ShareStatePersister | undefined
  highWatermark: HighWatermarkSource
  /** Why the group id cannot be served here (ownership, a group of another type), or null. */
  refuse: (groupId: string) => { error: ErrorName; message: string | null } | null
}

const code = (name: ErrorName): number => ErrorCode[name].code
const noPersister = { error: 'COORDINATOR_NOT_AVAILABLE' as const, message: 'The share group state is not available.' }

export async function describeShareGroupOffsets(
  env: ShareOffsetsEnv,
  groups: DescribeShareGroupOffsetsRequestData['groups'],
): Promise<DescribedGroup[]> {
  return Promise.all(groups.map((g) => describeGroup(env, g)))
}

async function describeGroup(env: ShareOffsetsEnv, req: DescribeShareGroupOffsetsRequestData['groups'][number]): Promise<DescribedGroup> {
  const fail = (error: ErrorName, message: string | null): DescribedGroup => ({
    groupId: req.groupId,
    topics: [],
    errorCode: code(error),
    errorMessage: message,
  })
  const refused = env.refuse(req.groupId) ?? (env.persister ? null : noPersister)
  if (refused) return fail(refused.error, refused.message)
  const group = env.shares.groups.get(req.groupId)
  if (group === undefined) return fail('GROUP_ID_NOT_FOUND', `Group ${req.groupId} not found.`)
  const all = env.topics()
  // Every topic with share state that still exists (a deleted topic's state is gone with it).
  const asked =
    req.topics === null
      ? [...group.stateTopics]
          .filter(([id, t]) => all.get(t.topicName)?.id === id)
          .map(([, t]) => ({ topicName: t.topicName, partitions: [...t.partitions].sort((a, b) => a - b) }))
      : req.topics
  const topics: DescribedTopic[] = await Promise.all(
    asked.map(async (t) => {
      const topic = all.get(t.topicName)
      const partitions = await Promise.all(
        t.partitions.map(async (p) => {
          const base = { partitionIndex: p, startOffset: -1, leaderEpoch: -1, lag: -1 }
          if (topic === undefined || p < 0 || p >= topic.partitions) {
            return {
              ...base,
              errorCode: code('UNKNOWN_TOPIC_OR_PARTITION'),
              errorMessage: 'This server does not host this topic-partition.',
            }
          }
          const s = await env.persister!.readSummary({ groupId: req.groupId, topicId: topic.id, partition: p }, -1)
          if (s.errorCode !== 0) return { ...base, errorCode: s.errorCode, errorMessage: s.errorMessage ?? null }
          const hw = env.highWatermark(t.topicName, p)
          const lag =
            s.startOffset >= 0 && s.deliveryCompleteCount >= 0 && hw !== null
              ? Math.max(0, hw - s.startOffset - s.deliveryCompleteCount)
              : -1
          return { ...base, startOffset: s.startOffset, leaderEpoch: s.leaderEpoch, lag, errorCode: 0, errorMessage: null }
        }),
      )
      return { topicName: t.topicName, topicId: topic?.id ?? ZERO_UUID, partitions }
    }),
  )
  return { groupId: req.groupId, topics, errorCode: 0, errorMessage: null }
}

/** Groups with members cannot have their offsets changed. */
function nonEmpty(group: ShareGroup | undefined): boolean {
  return group !== undefined && group.members.size > 0
}

export async function alterShareGroupOffsets(
  env: ShareOffsetsEnv,
  req: AlterShareGroupOffsetsRequestData,
  persist: (group: ShareGroup) => Promise<void>,
): Promise<AlterShareGroupOffsetsResponseData> {
  const fail = (error: ErrorName, message: string | null): AlterShareGroupOffsetsResponseData => ({
    throttleTimeMs: 0,
    errorCode: code(error),
    errorMessage: message,
    responses: [],
  })
  const refused = env.refuse(req.groupId) ?? (env.persister ? null : noPersister)
  if (refused) return fail(refused.error, refused.message)
  if (nonEmpty(env.shares.groups.get(req.groupId))) return fail('NON_EMPTY_GROUP', 'The group is not empty.')
  const group = env.shares.getOrCreate(req.groupId)
  const all = env.topics()
  let changed = false
  const responses = await Promise.all(
    req.topics.map(async (t) => {
      const topic = all.get(t.topicName)
      const partitions = await Promise.all(
        t.partitions.map(async (p) => {
          if (topic === undefined || p.partitionIndex < 0 || p.partitionIndex >= topic.partitions) {
            return {
              partitionIndex: p.partitionIndex,
              errorCode: code('UNKNOWN_TOPIC_OR_PARTITION'),
              errorMessage: 'This server does not host this topic-partition.',
            }
          }
          const key = { groupId: req.groupId, topicId: topic.id, partition: p.partitionIndex }
          const current = await env.persister!.readSummary(key, -1)
          // One above the stored epoch (0 when none), so partition leaders holding the old state are fenced.
          const stateEpoch = current.errorCode === 0 ? current.stateEpoch + 1 : 0
          const r = await env.persister!.initialize(key, stateEpoch, p.startOffset)
          if (r.errorCode === 0) {
            env.shares.addStateTopic(group, topic.id, t.topicName, [p.partitionIndex])
            changed = true
          }
          return {
            partitionIndex: p.partitionIndex,
            errorCode: r.errorCode,
            errorMessage: r.errorCode === 0 ? null : (r.errorMessage ?? null),
          }
        }),
      )
      return { topicName: t.topicName, topicId: topic?.id ?? ZERO_UUID, partitions }
    }),
  )
  if (changed) {
    try {
      await persist(group)
    } catch (err) {
      const name = (err as { errorName?: ErrorName }).errorName
      return fail(name !== undefined && name in ErrorCode ? name : 'UNKNOWN_SERVER_ERROR', (err as Error).message ?? null)
    }
  }
  return { throttleTimeMs: 0, errorCode: 0, errorMessage: null, responses }
}

export async function deleteShareGroupOffsets(
  env: ShareOffsetsEnv,
  req: DeleteShareGroupOffsetsRequestData,
  persist: (group: ShareGroup) => Promise<void>,
): Promise<DeleteShareGroupOffsetsResponseData> {
  const fail = (error: ErrorName, message: string | null): DeleteShareGroupOffsetsResponseData => ({
    throttleTimeMs: 0,
    errorCode: code(error),
    errorMessage: message,
    responses: [],
  })
  const refused = env.refuse(req.groupId) ?? (env.persister ? null : noPersister)
  if (refused) return fail(refused.error, refused.message)
  const group = env.shares.groups.get(req.groupId)
  if (group === undefined) return fail('GROUP_ID_NOT_FOUND', `Group ${req.groupId} not found.`)
  if (nonEmpty(group)) return fail('NON_EMPTY_GROUP', 'The group is not empty.')
  const all = env.topics()
  let changed = false
  const responses = await Promise.all(
    req.topics.map(async (t) => {
      const topic = all.get(t.topicName)
      const state = topic === undefined ? undefined : group.stateTopics.get(topic.id)
      const topicId = topic?.id ?? ZERO_UUID
      if (topic === undefined || state === undefined) {
        return {
          topicName: t.topicName,
          topicId,
          errorCode: code('UNKNOWN_TOPIC_OR_PARTITION'),
          errorMessage: `The topic ${t.topicName} has no share state in group ${req.groupId}.`,
        }
      }
      const results = await Promise.all(
        [...state.partitions].map((p) => env.persister!.delete({ groupId: req.groupId, topicId: topic.id, partition: p })),
      )
      const failed = results.find((r) => r.errorCode !== 0)
      if (failed) return { topicName: t.topicName, topicId, errorCode: failed.errorCode, errorMessage: failed.errorMessage ?? null }
      group.stateTopics.delete(topic.id)
      changed = true
      return { topicName: t.topicName, topicId, errorCode: 0, errorMessage: null }
    }),
  )
  if (changed) {
    try {
      await persist(group)
    } catch (err) {
      const name = (err as { errorName?: ErrorName }).errorName
      return fail(name !== undefined && name in ErrorCode ? name : 'UNKNOWN_SERVER_ERROR', (err as Error).message ?? null)
    }
  }
  return { throttleTimeMs: 0, errorCode: 0, errorMessage: null, responses }
}

/**
 * DeleteGroups of a share group: only when empty (NON_EMPTY_GROUP); the share state of every
 * partition it has state for is deleted first, then the group (its tombstones, written by the caller).
 */
export async function deleteShareGroupState(env: ShareOffsetsEnv, group: ShareGroup): Promise<number> {
  if (nonEmpty(group)) return code('NON_EMPTY_GROUP')
  if (group.stateTopics.size > 0 && !env.persister) return code('COORDINATOR_NOT_AVAILABLE')
  for (const [topicId, t] of group.stateTopics) {
    for (const p of t.partitions) {
      const r = await env.persister!.delete({ groupId: group.groupId, topicId, partition: p })
      // A topic deleted since (or shrunk) has no state left to delete.
      if (r.errorCode !== 0 && r.errorCode !== code('UNKNOWN_TOPIC_OR_PARTITION')) return r.errorCode
    }
  }
  return 0
}
