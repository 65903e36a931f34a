// What the share coordinator's RPCs (83-initialize … 87-read-share-group-state-summary) share: a
// request names one group and, per topic id, partitions; each (group, topic id, partition) is one
// key, answered on its own by the share coordinator (ctx.broker.shareCoordinator: NOT_COORDINATOR
// when this broker does not lead the key's `__share_group_state` partition,
// COORDINATOR_LOAD_IN_PROGRESS while it loads), all keys at once. A request with an empty group
// id is answered with no results, as Kafka's ShareCoordinatorService answers it; else the answer
// keeps the request's topics and partitions in order.
import type { SharePartitionKey, ShareStateResult } from '../ports/shares.js'
import { ErrorCode } from '../protocol/errors.js'
import { canCluster, Op } from './authorize.js'
import type { RequestContext } from './define.js'

export interface ShareStateRequest<P extends { partition: number }> {
  groupId: string
  topics: ReadonlyArray<{ topicId: string; partitions: ReadonlyArray<P> }>
}

/**
 * One answer per partition of the request, from `op` (none for an empty group id). These APIs are
 * sent by brokers: without CLUSTER_ACTION on the cluster each partition answers
 * CLUSTER_AUTHORIZATION_FAILED with the `refusal` fields (Kafka's KafkaApis).
 */
export async function perKey<P extends { partition: number }, R extends ShareStateResult>(
  ctx: RequestContext,
  refusal: Omit<R, 'errorCode' | 'errorMessage'>,
  req: ShareStateRequest<P>,
  op: (key: SharePartitionKey, p: P) => Promise<R>,
): Promise<Array<{ topicId: string; partitions: Array<R & { partition: number }> }>> {
  if (req.groupId.length === 0) return []
  if (!canCluster(ctx, Op.CLUSTER_ACTION)) {
    const denied = { ...refusal, errorCode: ErrorCode.CLUSTER_AUTHORIZATION_FAILED.code, errorMessage: null } as R
    op = async () => denied
  }
  return Promise.all(
    req.topics.map(async (t) => ({
      topicId: t.topicId,
      partitions: await Promise.all(
        t.partitions.map(async (p) => ({
          ...(await op({ groupId: req.groupId, topicId: t.topicId, partition: p.partition }, p)),
          partition: p.partition,
        })),
      ),
    })),
  )
}
