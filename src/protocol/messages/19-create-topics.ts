// CreateTopics (key 19), v2–7; flexible from v5. v4 lets numPartitions/replicationFactor be -1
// without manual assignments (broker defaults); v5 returns the created topic's configuration;
// v7 returns its topic id. Versions 0–1 are not served (Kafka 4 dropped them too).
import { f, type Infer, message, T } from '../schema.js'

export const CreateTopicsRequest = message({
  apiKey: 19,
  name: 'CreateTopics',
  versions: '2-7',
  flexible: '5+',
  fields: {
    topics: f.array('0+', {
      name: f.string('0+'),
      /** -1: use manual assignments or the broker default. */
      numPartitions: f.int32('0+'),
      /** -1: use manual assignments or the broker default. */
      replicationFactor: f.int16('0+'),
      assignments: f.array('0+', {
        partitionIndex: f.int32('0+'),
        brokerIds: f.arrayOf('0+', T.int32),
      }),
      configs: f.array('0+', {
        name: f.string('0+'),
        value: f.string('0+', { nullable: '0+' }),
      }),
    }),
    timeoutMs: f.int32('0+', { default: 60000 }),
    validateOnly: f.bool('1+', { default: false }),
  },
})

export const CreateTopicsResponse = message({
  apiKey: 19,
  name: 'CreateTopics',
  versions: '2-7',
  flexible: '5+',
  fields: {
    throttleTimeMs: f.int32('2+'),
    topics: f.array('0+', {
      name: f.string('0+'),
      topicId: f.uuid('7+'),
      errorCode: f.int16('0+'),
      errorMessage: f.string('1+', { nullable: '0+' }),
      /** Sent (tagged) when the topic's configs could not be returned. */
      topicConfigErrorCode: f.int16('5+', { tagged: '5+', tag: 0 }),
      numPartitions: f.int32('5+', { default: -1 }),
      replicationFactor: f.int16('5+', { default: -1 }),
      configs: f.array(
        '5+',
        {
          name: f.string('5+'),
          value: f.string('5+', { nullable: '5+' }),
          readOnly: f.bool('5+'),
          configSource: f.int8('5+', { default: -1 }),
          isSensitive: f.bool('5+'),
        },
        { nullable: '5+' },
      ),
    }),
  },
})

export type CreateTopicsRequestData = Infer<typeof CreateTopicsRequest>
export type CreateTopicsResponseData = Infer<typeof CreateTopicsResponse>
