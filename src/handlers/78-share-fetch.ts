// ShareFetch v1–2 (KIP-932): a share-group member's fetch from a partition leader — share session
// epochs (0 opens, n continues, −1 closes), acknowledgements applied first, then records acquired
// under a time lock and answered with their offset ranges and delivery counts (AcquiredRecords),
// long-polling up to maxWaitMs while nothing is acquired. v2: RENEW acknowledgements (KIP-1222).
// Errors: INVALID_REQUEST (no group or member id), SHARE_SESSION_NOT_FOUND,
// INVALID_SHARE_SESSION_EPOCH, SHARE_SESSION_LIMIT_REACHED (whole request); per partition
// UNKNOWN_TOPIC_ID, UNKNOWN_TOPIC_OR_PARTITION, NOT_LEADER_OR_FOLLOWER (with the current leader),
// and acknowledgeErrorCode INVALID_RECORD_STATE for records not acquired by the member.
// The work is share/share-requests.ts's (ports/share-fetch.ts).
import { ShareFetchRequest, ShareFetchResponse } from '../protocol/messages/78-share-fetch.js'
import { canGroup, canTopic, Op } from './authorize.js'
import { defineHandler } from './define.js'
import { ErrorCode } from '../protocol/errors.js'

export default defineHandler(ShareFetchRequest, ShareFetchResponse, { minVersion: 1, maxVersion: 2 }, async (ctx, req) => {
  // READ on the group (Kafka's KafkaApis).
  if (req.groupId !== null && !canGroup(ctx, Op.READ, req.groupId)) {
    return {
      throttleTimeMs: 0,
      errorCode: ErrorCode.GROUP_AUTHORIZATION_FAILED.code,
      acquisitionLockTimeoutMs: 0,
      responses: [],
      nodeEndpoints: [],
    }
  }
  // READ on each topic: a topic the caller may not read is left out of the fetch (and of the
  // share session) and answered TOPIC_AUTHORIZATION_FAILED, as Kafka's KafkaApis does.
  const denied = req.topics.filter((t) => {
    const name = ctx.broker.topics.getById(t.topicId)?.name
    return name !== undefined && !canTopic(ctx, Op.READ, name)
  })
  const asked = denied.length === 0 ? req : { ...req, topics: req.topics.filter((t) => !denied.includes(t)) }
  const answer = await ctx.broker.shares.shareFetch(asked, {
    apiVersion: ctx.apiVersion,
    connectionId: ctx.conn.id,
    listenerName: ctx.conn.listenerName,
    closed: ctx.conn.closed,
  })
  // The records point into pooled read buffers: they go back once the socket has the response.
  if (ctx.afterResponse) ctx.afterResponse(answer.release)
  else answer.release()
  if (denied.length === 0 || answer.response.errorCode !== 0) return answer.response
  const code = ErrorCode.TOPIC_AUTHORIZATION_FAILED.code
  const refused = denied.map((t) => ({
    topicId: t.topicId,
    partitions: t.partitions.map((p) => ({
      partitionIndex: p.partitionIndex,
      errorCode: code,
      errorMessage: null,
      acknowledgeErrorCode: p.acknowledgementBatches.length > 0 ? code : 0,
      acknowledgeErrorMessage: null,
      currentLeader: { leaderId: -1, leaderEpoch: -1 },
      records: Buffer.alloc(0),
      acquiredRecords: [],
    })),
  }))
  return { ...answer.response, responses: [...answer.response.responses, ...refused] }
})
