// ElectLeaders (key 43), v0–2; flexible from v2 (KIP-460). Asks the controller to elect a leader for
// the partitions named, or for every partition when topicPartitions is null.
//   v0  preferred-replica election only (KIP-183)
//   v1  electionType (0 PREFERRED, 1 UNCLEAN) and a top-level errorCode in the response
//   v2  flexible
// Errors per partition: ELECTION_NOT_NEEDED, PREFERRED_LEADER_NOT_AVAILABLE,
// ELIGIBLE_LEADERS_NOT_AVAILABLE, UNKNOWN_TOPIC_OR_PARTITION; top level: CLUSTER_AUTHORIZATION_FAILED.
import { f, type Infer, message, T } from '../schema.js'

/** The electionType values of KIP-460. */
export const ElectionType = { PREFERRED: 0, UNCLEAN: 1 } as const

export const ElectLeadersRequest = message({
  apiKey: 43,
  name: 'ElectLeaders',
  versions: '0-2',
  flexible: '2+',
  fields: {
    /** See ElectionType; v0 always elects the preferred replica. */
    electionType: f.int8('1+'),
    /** null: every partition of the cluster. */
    topicPartitions: f.array(
      '0+',
      {
        topic: f.string('0+'),
        partitions: f.arrayOf('0+', T.int32),
      },
      { nullable: '0+' },
    ),
    timeoutMs: f.int32('0+', { default: 60000 }),
  },
})

export const ElectLeadersResponse = message({
  apiKey: 43,
  name: 'ElectLeaders',
  versions: '0-2',
  flexible: '2+',
  fields: {
    throttleTimeMs: f.int32('0+'),
    errorCode: f.int16('1+'),
    replicaElectionResults: f.array('0+', {
      topic: f.string('0+'),
      partitionResult: f.array('0+', {
        partitionId: f.int32('0+'),
        errorCode: f.int16('0+'),
        errorMessage: f.string('0+', { nullable: '0+' }),
      }),
    }),
  },
})

export type ElectLeadersRequestData = Infer<typeof ElectLeadersRequest>
export type ElectLeadersResponseData = Infer<typeof ElectLeadersResponse>
