// DescribeCluster v0–2: the brokers as advertised on the caller's listener (the registered ones
// in an etcd cluster), the cluster id and the elected controller (this broker, on a single node).
// Needed once Metadata v11+ is advertised, since v11 dropped cluster-authorized-operations from
// Metadata. endpoint_type 2 (controllers) is refused with UNSUPPORTED_ENDPOINT_TYPE: there are no
// separate controllers. v2 (KIP-1073): a broker is registered only while it holds its lease and is
// never kept registered but fenced, so every broker listed is unfenced and include_fenced_brokers
// adds none.
import { ErrorCode } from '../protocol/errors.js'
import { DescribeClusterRequest, DescribeClusterResponse } from '../protocol/messages/60-describe-cluster.js'
import { clusterOperations } from './authorize.js'
import { defineHandler } from './define.js'

export default defineHandler(DescribeClusterRequest, DescribeClusterResponse, { minVersion: 0, maxVersion: 2 }, (ctx, req) => {
  const base = { throttleTimeMs: 0, endpointType: req.endpointType, clusterId: ctx.broker.clusterId }
  if (req.endpointType !== 1) {
    return { ...base, errorCode: ErrorCode.UNSUPPORTED_ENDPOINT_TYPE.code, errorMessage: 'only broker endpoints are served' }
  }
  return {
    ...base,
    errorCode: 0,
    controllerId: ctx.broker.controllerId(),
    brokers: ctx.broker
      .brokers(ctx.conn.listenerName)
      .map((b) => ({ brokerId: b.nodeId, host: b.host, port: b.port, rack: b.rack, isFenced: false })),
    clusterAuthorizedOperations: clusterOperations(ctx, req.includeClusterAuthorizedOperations),
  }
})
