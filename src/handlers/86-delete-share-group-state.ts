// DeleteShareGroupState v0 (KIP-932; inter-broker): the group coordinator removes share-partitions'
// durable state (deleting a share group or its offsets). Each key is answered by the share
// coordinator (share-state.ts): NONE once the tombstone is durable, or at once when there is no
// state; NOT_COORDINATOR, COORDINATOR_LOAD_IN_PROGRESS, COORDINATOR_NOT_AVAILABLE for the caller to
// retry; UNKNOWN_TOPIC_OR_PARTITION for a partition the cluster does not have; INVALID_REQUEST for
// a negative partition.
// A request with an empty group id gets no results (share-state.ts).
import { DeleteShareGroupStateRequest, DeleteShareGroupStateResponse } from '../protocol/messages/86-delete-share-group-state.js'
import { defineHandler } from './define.js'
import { perKey } from './share-state.js'

export default defineHandler(
  DeleteShareGroupStateRequest,
  DeleteShareGroupStateResponse,
  { minVersion: 0, maxVersion: 0 },
  async (ctx, req) => ({
    results: await perKey(ctx, {}, req, (key) => ctx.broker.shareCoordinator.delete(key)),
  }),
)
