// OffsetFetch v1–9. v8+ asks for several groups at once (groups[]); topics = null (v2+) means
// every committed offset of the group. A partition without a commit answers offset -1, leader
// epoch -1, metadata "". require_stable (v7+, KIP-447) never gets UNSTABLE_OFFSET_COMMIT: no
// transactional commit can be pending yet. v1 has no top-level error code, so a group-level
// error (INVALID_GROUP_ID, COORDINATOR_LOAD_IN_PROGRESS, NOT_COORDINATOR) is put on every
// requested partition, as Kafka answers v0–1. v9's member id/epoch concern KIP-848 groups only.
import { OffsetFetchRequest, OffsetFetchResponse } from '../protocol/messages/09-offset-fetch.js'
import { defineHandler } from './define.js'
import type { FetchOffsetsResult } from './services.js'

type RequestedTopics = Array<{ name: string; partitionIndexes: number[] }> | null

export default defineHandler(OffsetFetchRequest, OffsetFetchResponse, { minVersion: 1, maxVersion: 9 }, (ctx, req) => {
  const fetch = (groupId: string, topics: RequestedTopics): FetchOffsetsResult =>
    ctx.broker.groups.fetchOffsets(groupId, topics?.map((t) => ({ name: t.name, partitions: t.partitionIndexes })) ?? null, req.requireStable)

  if (ctx.apiVersion >= 8) {
    return {
      throttleTimeMs: 0,
      groups: req.groups.map((g) => {
        const r = fetch(g.groupId, g.topics)
        return { groupId: g.groupId, errorCode: r.errorCode, topics: r.topics }
      }),
    }
  }
  const r = fetch(req.groupId, req.topics)
  if (ctx.apiVersion < 2 && r.errorCode !== 0) {
    return {
      throttleTimeMs: 0,
      topics: (req.topics ?? []).map((t) => ({
        name: t.name,
        partitions: t.partitionIndexes.map((partitionIndex) => ({
          partitionIndex,
          committedOffset: -1,
          committedLeaderEpoch: -1,
          metadata: '',
          errorCode: r.errorCode,
        })),
      })),
    }
  }
  return { throttleTimeMs: 0, errorCode: r.errorCode, topics: r.topics }
})
