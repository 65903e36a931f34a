// WriteShareGroupState v0–1 (KIP-932; inter-broker): a share-partition leader writes what changed
// of a share-partition's state — the start offset (-1: unchanged), the batches of records whose
// state or delivery count changed, and (v1) the count of records past the start offset whose
// delivery is complete (-1 before v1: unknown). Each key is answered by the share coordinator
// (share-state.ts) once the change is durable: FENCED_LEADER_EPOCH for an older leader epoch than
// stored, FENCED_STATE_EPOCH for another state epoch; NOT_COORDINATOR,
// COORDINATOR_LOAD_IN_PROGRESS, COORDINATOR_NOT_AVAILABLE for the caller to retry;
// UNKNOWN_TOPIC_OR_PARTITION for a partition the cluster does not have; INVALID_REQUEST for a
// negative partition, leader epoch or state epoch. A request with an empty group id gets no
// results (share-state.ts).
import { WriteShareGroupStateRequest, WriteShareGroupStateResponse } from '../protocol/messages/85-write-share-group-state.js'
import { defineHandler } from './define.js'
import { perKey } from './share-state.js'

export default defineHandler(
  WriteShareGroupStateRequest,
  WriteShareGroupStateResponse,
  { minVersion: 0, maxVersion: 1 },
  async (ctx, req) => ({
    results: await perKey(ctx, {}, req, (key, p) =>
      ctx.broker.shareCoordinator.write(key, {
        stateEpoch: p.stateEpoch,
        leaderEpoch: p.leaderEpoch,
        startOffset: p.startOffset,
        deliveryCompleteCount: ctx.apiVersion >= 1 ? p.deliveryCompleteCount : -1,
        stateBatches: p.stateBatches,
      }),
    ),
  }),
)
