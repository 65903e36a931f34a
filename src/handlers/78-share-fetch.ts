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
import { canGroup, Op, readableShareTopics, shareGroupDenied } from './authorize.js'
import { defineHandler } from './define.js'

export default defineHandler(ShareFetchRequest, ShareFetchResponse, { minVersion: 1, maxVersion: 2 }, async (ctx, req) => {
  // READ on the group (Kafka's KafkaApis).
  if (req.groupId !== null && !canGroup(ctx, Op.READ, req.groupId)) return shareGroupDenied()
  // READ on each topic: a topic the caller may not read is left out of the fetch (and of the
  // share session) and answered TOPIC_AUTHORIZATION_FAILED, as Kafka's KafkaApis does.
  const topics = readableShareTopics(ctx, req)
  const answer = await ctx.broker.shares.shareFetch(topics.request, {
    apiVersion: ctx.apiVersion,
    connectionId: ctx.conn.id,
    listenerName: ctx.conn.listenerName,
    closed: ctx.conn.closed,
  })
  // The records point into pooled read buffers: they go back once the socket has the response.
  if (ctx.afterResponse) ctx.afterResponse(answer.release)
  else answer.release()
  // Throttled, the answer goes out without its records: they go back to the share-partitions.
  ctx.onThrottled?.(answer.unsent)
  return topics.answer(answer.response, (p: (typeof req.topics)[number]['partitions'][number], code) => ({
    acknowledgeErrorCode: p.acknowledgementBatches.length > 0 ? code : 0,
    acknowledgeErrorMessage: null,
    records: Buffer.alloc(0),
    acquiredRecords: [],
  }))
})
