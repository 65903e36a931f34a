// InitializeShareGroupState v0 (KIP-932; inter-broker): the group coordinator creates, or resets
// with a newer state epoch, share-partitions' durable state at a start offset. Each key is
// answered by the share coordinator (share-state.ts): NONE once the new state is durable;
// FENCED_STATE_EPOCH when the stored state epoch is newer; NOT_COORDINATOR,
// COORDINATOR_LOAD_IN_PROGRESS, COORDINATOR_NOT_AVAILABLE (the write did not reach the in-sync
// replicas) for the caller to retry; UNKNOWN_TOPIC_OR_PARTITION for a partition the cluster does
// not have; INVALID_REQUEST for a negative partition or state epoch.
// A request with an empty group id gets no results (share-state.ts).
import {
  InitializeShareGroupStateRequest,
  InitializeShareGroupStateResponse,
} from '../protocol/messages/83-initialize-share-group-state.js'
import { defineHandler } from './define.js'
import { perKey } from './share-state.js'

export default defineHandler(
  InitializeShareGroupStateRequest,
  InitializeShareGroupStateResponse,
  { minVersion: 0, maxVersion: 0 },
  async (ctx, req) => ({
    results: await perKey(ctx, {}, req, (key, p) => ctx.broker.shareCoordinator.initialize(key, p.stateEpoch, p.startOffset)),
  }),
)
