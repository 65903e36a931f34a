// DescribeCluster (key 60), v0–2; flexible in every version. v1 adds the endpoint type
// (1 = brokers, 2 = controllers, KIP-919); v2 lets the caller ask for fenced brokers too and
// flags each broker as fenced or not (KIP-1073). Clients use it once Metadata ≥ 11 stopped carrying
// the cluster's authorized operations.
import { f, type Infer, message } from '../schema.js'

export const DescribeClusterRequest = message({
  apiKey: 60,
  name: 'DescribeCluster',
  versions: '0-2',
  flexible: '0+',
  fields: {
    includeClusterAuthorizedOperations: f.bool('0+'),
    endpointType: f.int8('1+', { default: 1 }),
    includeFencedBrokers: f.bool('2+', { default: false }),
  },
})

export const DescribeClusterResponse = message({
  apiKey: 60,
  name: 'DescribeCluster',
  versions: '0-2',
  flexible: '0+',
  fields: {
    throttleTimeMs: f.int32('0+'),
    errorCode: f.int16('0+'),
    errorMessage: f.string('0+', { nullable: '0+', default: null }),
    endpointType: f.int8('1+', { default: 1 }),
    clusterId: f.string('0+'),
    controllerId: f.int32('0+', { default: -1 }),
    brokers: f.array('0+', {
      brokerId: f.int32('0+'),
      host: f.string('0+'),
      port: f.int32('0+'),
      rack: f.string('0+', { nullable: '0+', default: null }),
      isFenced: f.bool('2+', { default: false }),
    }),
    /** Bit field of ACL operations; INT32_MIN when not requested. */
    clusterAuthorizedOperations: f.int32('0+', { default: -2147483648 }),
  },
})

export type DescribeClusterRequestData = Infer<typeof DescribeClusterRequest>
export type DescribeClusterResponseData = Infer<typeof DescribeClusterResponse>
