// AlterPartitionReassignments (key 45), v0–1; flexible from v0 (KIP-455). Starts, or with null
// replicas cancels, the move of each partition named to a new replica list; the controller adds the
// new replicas, waits for them to join the ISR, then drops the old ones.
//   v1  allowReplicationFactorChange in the request and echoed in the response (KIP-860): when
//       false, a reassignment that changes a partition's replica count gets INVALID_REPLICATION_FACTOR
// Errors per partition: NO_REASSIGNMENT_IN_PROGRESS (cancel with nothing to cancel),
// UNKNOWN_TOPIC_OR_PARTITION, INVALID_REPLICA_ASSIGNMENT, INVALID_REPLICATION_FACTOR.
import { f, type Infer, message, T } from '../schema.js'

export const AlterPartitionReassignmentsRequest = message({
  apiKey: 45,
  name: 'AlterPartitionReassignments',
  versions: '0-1',
  flexible: '0+',
  fields: {
    timeoutMs: f.int32('0+', { default: 60000 }),
    allowReplicationFactorChange: f.bool('1+', { default: true }),
    topics: f.array('0+', {
      name: f.string('0+'),
      partitions: f.array('0+', {
        partitionIndex: f.int32('0+'),
        /** The target replicas, preferred leader first; null cancels a pending reassignment. */
        replicas: f.arrayOf('0+', T.int32, { nullable: '0+', default: null }),
      }),
    }),
  },
})

export const AlterPartitionReassignmentsResponse = message({
  apiKey: 45,
  name: 'AlterPartitionReassignments',
  versions: '0-1',
  flexible: '0+',
  fields: {
    throttleTimeMs: f.int32('0+'),
    allowReplicationFactorChange: f.bool('1+', { default: true }),
    errorCode: f.int16('0+'),
    errorMessage: f.string('0+', { nullable: '0+' }),
    responses: f.array('0+', {
      name: f.string('0+'),
      partitions: f.array('0+', {
        partitionIndex: f.int32('0+'),
        errorCode: f.int16('0+'),
        errorMessage: f.string('0+', { nullable: '0+' }),
      }),
    }),
  },
})

export type AlterPartitionReassignmentsRequestData = Infer<typeof AlterPartitionReassignmentsRequest>
export type AlterPartitionReassignmentsResponseData = Infer<typeof AlterPartitionReassignmentsResponse>
