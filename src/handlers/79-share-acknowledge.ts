// ShareAcknowledge v1–2 (KIP-932): a share-group member acknowledges records it acquired, outside
// a fetch — ACCEPT, RELEASE, REJECT, GAP, and (v2, isRenewAck, KIP-1222) RENEW. The share session
// must exist: its epoch is > 0 (the next one) or −1 (acknowledge, then close the session and
// release what the member still holds); 0 is INVALID_SHARE_SESSION_EPOCH, as sessions are opened
// by ShareFetch. Per partition: INVALID_RECORD_STATE for records not acquired by the member, the
// leader errors as ShareFetch answers them. The work is share/share-requests.ts's.
import { ShareAcknowledgeRequest, ShareAcknowledgeResponse } from '../protocol/messages/79-share-acknowledge.js'
import { canGroup, Op, readableShareTopics, shareGroupDenied } from './authorize.js'
import { defineHandler } from './define.js'

export default defineHandler(ShareAcknowledgeRequest, ShareAcknowledgeResponse, { minVersion: 1, maxVersion: 2 }, async (ctx, req) => {
  // READ on the group (Kafka's KafkaApis).
  if (req.groupId !== null && !canGroup(ctx, Op.READ, req.groupId)) return shareGroupDenied()
  // READ on each topic: the acknowledgements of a topic the caller may not read are not applied
  // and its partitions answer TOPIC_AUTHORIZATION_FAILED.
  const topics = readableShareTopics(ctx, req)
  const res = await ctx.broker.shares.shareAcknowledge(topics.request, {
    apiVersion: ctx.apiVersion,
    connectionId: ctx.conn.id,
    listenerName: ctx.conn.listenerName,
    closed: ctx.conn.closed,
  })
  return topics.answer(res, () => ({}))
})
