// The partitions an OffsetCommit (08-offset-commit.ts) or TxnOffsetCommit (28-txn-offset-commit.ts)
// names, resolved as Kafka's KafkaApis resolves them before the group coordinator sees the
// request: by topic id when the version names topics by id (an id no topic has answers
// UNKNOWN_TOPIC_ID for all its partitions), else by name; a partition of an unknown topic, or beyond
// the topic's partition count, answers UNKNOWN_TOPIC_OR_PARTITION. The answer's topics start as the
// request's (ids carried back), every partition at 0; the caller writes the coordinator's code for
// offsets[i] into slots[i]. `refusal` gives the authorization answer for a topic (by name; 0 =
// allowed), which comes before the topic is looked up, as Kafka answers it.
import type { OffsetToCommit } from '../ports/groups.js'
import type { TopicService } from '../ports/topics.js'
import { ErrorCode } from '../protocol/errors.js'

export interface CommitRequestTopic {
  name: string
  topicId: string
  partitions: ReadonlyArray<{
    partitionIndex: number
    committedOffset: number
    committedLeaderEpoch: number
    committedMetadata: string | null
  }>
}

export interface CommitResultTopic {
  name: string
  topicId: string
  partitions: Array<{ partitionIndex: number; errorCode: number }>
}

export interface ResolvedCommit {
  /** The answer, one entry per requested topic and partition, in request order. */
  results: CommitResultTopic[]
  /** The partitions of known topics, to hand to the coordinator. */
  offsets: OffsetToCommit[]
  /** slots[i] is the answer entry of offsets[i]. */
  slots: Array<{ errorCode: number }>
}

export function resolveOffsetsToCommit(
  topics: TopicService,
  requested: readonly CommitRequestTopic[],
  byId: boolean,
  refusal: (topic: string) => number = () => 0,
): ResolvedCommit {
  const results = requested.map((t) => ({
    name: t.name,
    topicId: t.topicId,
    partitions: t.partitions.map((p) => ({ partitionIndex: p.partitionIndex, errorCode: 0 })),
  }))
  const offsets: OffsetToCommit[] = []
  const slots: Array<{ errorCode: number }> = []
  requested.forEach((t, ti) => {
    const topic = byId ? topics.getById(t.topicId) : topics.get(t.name)
    const refused = topic || !byId ? refusal(topic?.name ?? t.name) : 0
    t.partitions.forEach((p, pi) => {
      const slot = results[ti]!.partitions[pi]!
      if (refused !== 0) {
        slot.errorCode = refused
        return
      }
      if (!topic && byId) {
        slot.errorCode = ErrorCode.UNKNOWN_TOPIC_ID.code
        return
      }
      if (!topic || p.partitionIndex < 0 || p.partitionIndex >= topic.partitions) {
        slot.errorCode = ErrorCode.UNKNOWN_TOPIC_OR_PARTITION.code
        return
      }
      offsets.push({
        topic: topic.name,
        partition: p.partitionIndex,
        offset: p.committedOffset,
        leaderEpoch: p.committedLeaderEpoch,
        metadata: p.committedMetadata,
      })
      slots.push(slot)
    })
  })
  return { results, offsets, slots }
}
