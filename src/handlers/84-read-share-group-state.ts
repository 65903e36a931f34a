// ReadShareGroupState v0 (KIP-932; inter-broker): a share-partition leader reads the durable state
// (state epoch, start offset, state batches) of the share-partitions it starts serving. Each key is
// answered by the share coordinator (share-state.ts): a key without state answers start offset -1,
// state epoch 0, no error (uninitialized); a stored leader epoch above the request's is
// FENCED_LEADER_EPOCH (a newer one is recorded before the answer); NOT_COORDINATOR,
// COORDINATOR_LOAD_IN_PROGRESS for the caller to retry; UNKNOWN_TOPIC_OR_PARTITION for a partition
// the cluster does not have; INVALID_REQUEST for a negative partition or leader epoch. A request
// with an empty group id gets no results (share-state.ts).
import { ReadShareGroupStateRequest, ReadShareGroupStateResponse } from '../protocol/messages/84-read-share-group-state.js'
import { defineHandler } from './define.js'
import { perKey } from './share-state.js'

export default defineHandler(
  ReadShareGroupStateRequest,
  ReadShareGroupStateResponse,
  { minVersion: 0, maxVersion: 0 },
  async (ctx, req) => ({
    results: await perKey(ctx, { stateEpoch: -1, startOffset: -1, stateBatches: [] }, req, (key, p) =>
      ctx.broker.shareCoordinator.read(key, p.leaderEpoch),
    ),
  }),
)
