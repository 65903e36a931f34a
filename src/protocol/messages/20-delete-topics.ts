// DeleteTopics (key 20), v1–6; flexible from v4. v5 adds a per-topic error message; v6 names
// topics by name or id (topics[]) instead of the plain name list (topicNames). Version 0 is not
// served (Kafka 4 dropped it too).
import { f, type Infer, message, T } from '../schema.js'

export const DeleteTopicsRequest = message({
  apiKey: 20,
  name: 'DeleteTopics',
  versions: '1-6',
  flexible: '4+',
  fields: {
    topics: f.array('6+', {
      /** null when the topic is named by id. */
      name: f.string('6+', { nullable: '6+', default: null }),
      topicId: f.uuid('6+'),
    }),
    topicNames: f.arrayOf('0-5', T.string),
    timeoutMs: f.int32('0+'),
  },
})

export const DeleteTopicsResponse = message({
  apiKey: 20,
  name: 'DeleteTopics',
  versions: '1-6',
  flexible: '4+',
  fields: {
    throttleTimeMs: f.int32('1+'),
    responses: f.array('0+', {
      name: f.string('0+', { nullable: '6+' }),
      topicId: f.uuid('6+'),
      errorCode: f.int16('0+'),
      errorMessage: f.string('5+', { nullable: '5+', default: null }),
    }),
  },
})

export type DeleteTopicsRequestData = Infer<typeof DeleteTopicsRequest>
export type DeleteTopicsResponseData = Infer<typeof DeleteTopicsResponse>
