// ReadShareGroupStateSummary v0–1 (KIP-932; inter-broker): the state epoch, leader epoch, start
// offset and (v1) delivery-complete count of share-partitions, for describing a share group's
// offsets and lag. Each key is answered by the share coordinator (share-state.ts): a key without
// state answers start offset -1, no error; NOT_COORDINATOR, COORDINATOR_LOAD_IN_PROGRESS for the
// caller to retry; UNKNOWN_TOPIC_OR_PARTITION for a partition the cluster does not have;
// INVALID_REQUEST for a negative partition.
// A request with an empty group id gets no results (share-state.ts).
import {
  ReadShareGroupStateSummaryRequest,
  ReadShareGroupStateSummaryResponse,
} from '../protocol/messages/87-read-share-group-state-summary.js'
import { defineHandler } from './define.js'
import { perKey } from './share-state.js'

export default defineHandler(
  ReadShareGroupStateSummaryRequest,
  ReadShareGroupStateSummaryResponse,
  { minVersion: 0, maxVersion: 1 },
  async (ctx, req) => ({
    results: await perKey(ctx, { stateEpoch: -1, leaderEpoch: -1, startOffset: -1, deliveryCompleteCount: -1 }, req, (key, p) =>
      ctx.broker.shareCoordinator.readSummary(key, p.leaderEpoch),
    ),
  }),
)
