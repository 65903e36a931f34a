// CreatePartitions (key 37), v0–3; flexible from v2. v1 throttles after the response; v3 is v2
// that may answer THROTTLING_QUOTA_EXCEEDED (KIP-599). Partition counts only grow; assignments,
// when given, list the replicas of each new partition in order.
import { f, type Infer, message, T } from '../schema.js'

export const CreatePartitionsRequest = message({
  apiKey: 37,
  name: 'CreatePartitions',
  versions: '0-3',
  flexible: '2+',
  fields: {
    topics: f.array('0+', {
      name: f.string('0+'),
      /** The new total partition count. */
      count: f.int32('0+'),
      /** null: the broker places the new partitions; otherwise one entry per new partition. */
      assignments: f.array(
        '0+',
        {
          brokerIds: f.arrayOf('0+', T.int32),
        },
        { nullable: '0+' },
      ),
    }),
    timeoutMs: f.int32('0+', { default: 60000 }),
    validateOnly: f.bool('0+', { default: false }),
  },
})

export const CreatePartitionsResponse = message({
  apiKey: 37,
  name: 'CreatePartitions',
  versions: '0-3',
  flexible: '2+',
  fields: {
    throttleTimeMs: f.int32('0+'),
    results: f.array('0+', {
      name: f.string('0+'),
      errorCode: f.int16('0+'),
      errorMessage: f.string('0+', { nullable: '0+' }),
    }),
  },
})

export type CreatePartitionsRequestData = Infer<typeof CreatePartitionsRequest>
export type CreatePartitionsResponseData = Infer<typeof CreatePartitionsResponse>
