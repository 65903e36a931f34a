// ListPartitionReassignments (key 46), v0; flexible (KIP-455). Lists the reassignments in progress:
// for each partition moving, its current replica set and the replicas being added and removed.
// A null topic list asks for every reassignment in the cluster.
import { f, type Infer, message, T } from '../schema.js'

export const ListPartitionReassignmentsRequest = message({
  apiKey: 46,
  name: 'ListPartitionReassignments',
  versions: '0',
  flexible: '0+',
  fields: {
    timeoutMs: f.int32('0+', { default: 60000 }),
    /** null: every reassignment in progress. */
    topics: f.array(
      '0+',
      {
        name: f.string('0+'),
        partitionIndexes: f.arrayOf('0+', T.int32),
      },
      { nullable: '0+', default: null },
    ),
  },
})

export const ListPartitionReassignmentsResponse = message({
  apiKey: 46,
  name: 'ListPartitionReassignments',
  versions: '0',
  flexible: '0+',
  fields: {
    throttleTimeMs: f.int32('0+'),
    errorCode: f.int16('0+'),
    errorMessage: f.string('0+', { nullable: '0+' }),
    topics: f.array('0+', {
      name: f.string('0+'),
      partitions: f.array('0+', {
        partitionIndex: f.int32('0+'),
        /** The current replica set (target and original replicas together while moving). */
        replicas: f.arrayOf('0+', T.int32),
        addingReplicas: f.arrayOf('0+', T.int32),
        removingReplicas: f.arrayOf('0+', T.int32),
      }),
    }),
  },
})

export type ListPartitionReassignmentsRequestData = Infer<typeof ListPartitionReassignmentsRequest>
export type ListPartitionReassignmentsResponseData = Infer<typeof ListPartitionReassignmentsResponse>
