// Every declared API: request and response declarations by API key.
import type { Message } from '../schema.js'
import { ProduceRequest, ProduceResponse } from './00-produce.js'
import { FetchRequest, FetchResponse } from './01-fetch.js'
import { ListOffsetsRequest, ListOffsetsResponse } from './02-list-offsets.js'
import { MetadataRequest, MetadataResponse } from './03-metadata.js'
import { OffsetCommitRequest, OffsetCommitResponse } from './08-offset-commit.js'
import { OffsetFetchRequest, OffsetFetchResponse } from './09-offset-fetch.js'
import { FindCoordinatorRequest, FindCoordinatorResponse } from './10-find-coordinator.js'
import { JoinGroupRequest, JoinGroupResponse } from './11-join-group.js'
import { HeartbeatRequest, HeartbeatResponse } from './12-heartbeat.js'
import { LeaveGroupRequest, LeaveGroupResponse } from './13-leave-group.js'
import { SyncGroupRequest, SyncGroupResponse } from './14-sync-group.js'
import { DescribeGroupsRequest, DescribeGroupsResponse } from './15-describe-groups.js'
import { ListGroupsRequest, ListGroupsResponse } from './16-list-groups.js'
import { ApiVersionsRequest, ApiVersionsResponse } from './18-api-versions.js'
import { CreateTopicsRequest, CreateTopicsResponse } from './19-create-topics.js'
import { DeleteTopicsRequest, DeleteTopicsResponse } from './20-delete-topics.js'
import { DeleteRecordsRequest, DeleteRecordsResponse } from './21-delete-records.js'
import { InitProducerIdRequest, InitProducerIdResponse } from './22-init-producer-id.js'
import { OffsetForLeaderEpochRequest, OffsetForLeaderEpochResponse } from './23-offset-for-leader-epoch.js'
import { AddPartitionsToTxnRequest, AddPartitionsToTxnResponse } from './24-add-partitions-to-txn.js'
import { AddOffsetsToTxnRequest, AddOffsetsToTxnResponse } from './25-add-offsets-to-txn.js'
import { EndTxnRequest, EndTxnResponse } from './26-end-txn.js'
import { WriteTxnMarkersRequest, WriteTxnMarkersResponse } from './27-write-txn-markers.js'
import { TxnOffsetCommitRequest, TxnOffsetCommitResponse } from './28-txn-offset-commit.js'
import { DescribeConfigsRequest, DescribeConfigsResponse } from './32-describe-configs.js'
import { AlterConfigsRequest, AlterConfigsResponse } from './33-alter-configs.js'
import { DescribeLogDirsRequest, DescribeLogDirsResponse } from './35-describe-log-dirs.js'
import { CreatePartitionsRequest, CreatePartitionsResponse } from './37-create-partitions.js'
import { DeleteGroupsRequest, DeleteGroupsResponse } from './42-delete-groups.js'
import { ElectLeadersRequest, ElectLeadersResponse } from './43-elect-leaders.js'
import { IncrementalAlterConfigsRequest, IncrementalAlterConfigsResponse } from './44-incremental-alter-configs.js'
import { AlterPartitionReassignmentsRequest, AlterPartitionReassignmentsResponse } from './45-alter-partition-reassignments.js'
import { ListPartitionReassignmentsRequest, ListPartitionReassignmentsResponse } from './46-list-partition-reassignments.js'
import { OffsetDeleteRequest, OffsetDeleteResponse } from './47-offset-delete.js'
import { DescribeClusterRequest, DescribeClusterResponse } from './60-describe-cluster.js'
import { DescribeProducersRequest, DescribeProducersResponse } from './61-describe-producers.js'
import { DescribeTransactionsRequest, DescribeTransactionsResponse } from './65-describe-transactions.js'
import { ListTransactionsRequest, ListTransactionsResponse } from './66-list-transactions.js'
import { ConsumerGroupHeartbeatRequest, ConsumerGroupHeartbeatResponse } from './68-consumer-group-heartbeat.js'
import { ConsumerGroupDescribeRequest, ConsumerGroupDescribeResponse } from './69-consumer-group-describe.js'
import { GetTelemetrySubscriptionsRequest, GetTelemetrySubscriptionsResponse } from './71-get-telemetry-subscriptions.js'
import { PushTelemetryRequest, PushTelemetryResponse } from './72-push-telemetry.js'
import { DescribeTopicPartitionsRequest, DescribeTopicPartitionsResponse } from './75-describe-topic-partitions.js'
import { ShareGroupHeartbeatRequest, ShareGroupHeartbeatResponse } from './76-share-group-heartbeat.js'
import { ShareGroupDescribeRequest, ShareGroupDescribeResponse } from './77-share-group-describe.js'
import { ShareFetchRequest, ShareFetchResponse } from './78-share-fetch.js'
import { ShareAcknowledgeRequest, ShareAcknowledgeResponse } from './79-share-acknowledge.js'
import { InitializeShareGroupStateRequest, InitializeShareGroupStateResponse } from './83-initialize-share-group-state.js'
import { ReadShareGroupStateRequest, ReadShareGroupStateResponse } from './84-read-share-group-state.js'
import { WriteShareGroupStateRequest, WriteShareGroupStateResponse } from './85-write-share-group-state.js'
import { DeleteShareGroupStateRequest, DeleteShareGroupStateResponse } from './86-delete-share-group-state.js'
import { ReadShareGroupStateSummaryRequest, ReadShareGroupStateSummaryResponse } from './87-read-share-group-state-summary.js'
import { DescribeShareGroupOffsetsRequest, DescribeShareGroupOffsetsResponse } from './90-describe-share-group-offsets.js'
import { AlterShareGroupOffsetsRequest, AlterShareGroupOffsetsResponse } from './91-alter-share-group-offsets.js'
import { DeleteShareGroupOffsetsRequest, DeleteShareGroupOffsetsResponse } from './92-delete-share-group-offsets.js'

export interface ApiDecl {
  request: Message<any>
  response: Message<any>
}

const pair = (request: Message<any>, response: Message<any>): ApiDecl => ({ request, response })

export const apis: ApiDecl[] = [
  pair(ProduceRequest, ProduceResponse),
  pair(FetchRequest, FetchResponse),
  pair(ListOffsetsRequest, ListOffsetsResponse),
  pair(MetadataRequest, MetadataResponse),
  pair(OffsetCommitRequest, OffsetCommitResponse),
  pair(OffsetFetchRequest, OffsetFetchResponse),
  pair(FindCoordinatorRequest, FindCoordinatorResponse),
  pair(JoinGroupRequest, JoinGroupResponse),
  pair(HeartbeatRequest, HeartbeatResponse),
  pair(LeaveGroupRequest, LeaveGroupResponse),
  pair(SyncGroupRequest, SyncGroupResponse),
  pair(DescribeGroupsRequest, DescribeGroupsResponse),
  pair(ListGroupsRequest, ListGroupsResponse),
  pair(ApiVersionsRequest, ApiVersionsResponse),
  pair(CreateTopicsRequest, CreateTopicsResponse),
  pair(DeleteTopicsRequest, DeleteTopicsResponse),
  pair(DeleteRecordsRequest, DeleteRecordsResponse),
  pair(InitProducerIdRequest, InitProducerIdResponse),
  pair(OffsetForLeaderEpochRequest, OffsetForLeaderEpochResponse),
  pair(AddPartitionsToTxnRequest, AddPartitionsToTxnResponse),
  pair(AddOffsetsToTxnRequest, AddOffsetsToTxnResponse),
  pair(EndTxnRequest, EndTxnResponse),
  pair(WriteTxnMarkersRequest, WriteTxnMarkersResponse),
  pair(TxnOffsetCommitRequest, TxnOffsetCommitResponse),
  pair(DescribeConfigsRequest, DescribeConfigsResponse),
  pair(AlterConfigsRequest, AlterConfigsResponse),
  pair(DescribeLogDirsRequest, DescribeLogDirsResponse),
  pair(CreatePartitionsRequest, CreatePartitionsResponse),
  pair(DeleteGroupsRequest, DeleteGroupsResponse),
  pair(ElectLeadersRequest, ElectLeadersResponse),
  pair(IncrementalAlterConfigsRequest, IncrementalAlterConfigsResponse),
  pair(AlterPartitionReassignmentsRequest, AlterPartitionReassignmentsResponse),
  pair(ListPartitionReassignmentsRequest, ListPartitionReassignmentsResponse),
  pair(OffsetDeleteRequest, OffsetDeleteResponse),
  pair(DescribeClusterRequest, DescribeClusterResponse),
  pair(DescribeProducersRequest, DescribeProducersResponse),
  pair(DescribeTransactionsRequest, DescribeTransactionsResponse),
  pair(ListTransactionsRequest, ListTransactionsResponse),
  pair(ConsumerGroupHeartbeatRequest, ConsumerGroupHeartbeatResponse),
  pair(ConsumerGroupDescribeRequest, ConsumerGroupDescribeResponse),
  pair(GetTelemetrySubscriptionsRequest, GetTelemetrySubscriptionsResponse),
  pair(PushTelemetryRequest, PushTelemetryResponse),
  pair(DescribeTopicPartitionsRequest, DescribeTopicPartitionsResponse),
  pair(ShareGroupHeartbeatRequest, ShareGroupHeartbeatResponse),
  pair(ShareGroupDescribeRequest, ShareGroupDescribeResponse),
  pair(ShareFetchRequest, ShareFetchResponse),
  pair(ShareAcknowledgeRequest, ShareAcknowledgeResponse),
  pair(InitializeShareGroupStateRequest, InitializeShareGroupStateResponse),
  pair(ReadShareGroupStateRequest, ReadShareGroupStateResponse),
  pair(WriteShareGroupStateRequest, WriteShareGroupStateResponse),
  pair(DeleteShareGroupStateRequest, DeleteShareGroupStateResponse),
  pair(ReadShareGroupStateSummaryRequest, ReadShareGroupStateSummaryResponse),
  pair(DescribeShareGroupOffsetsRequest, DescribeShareGroupOffsetsResponse),
  pair(AlterShareGroupOffsetsRequest, AlterShareGroupOffsetsResponse),
  pair(DeleteShareGroupOffsetsRequest, DeleteShareGroupOffsetsResponse),
]

export const apiByKey = new Map<number, ApiDecl>(apis.map((a) => [a.request.apiKey, a]))
