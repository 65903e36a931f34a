// Topic name rules, as Kafka enforces them (org.apache.kafka.common.internals.Topic):
// 1–249 characters of [a-zA-Z0-9._-], not "." or "..". Names that differ only by '.' versus '_'
// collide in metric names, so Kafka refuses a new topic whose name collides with an existing one.
import { KafkaError } from '../protocol/errors.js'

export const MAX_TOPIC_NAME_LENGTH = 249
const LEGAL = /^[a-zA-Z0-9._-]+$/

/** The transaction coordinator's internal topic (coordinator/txn/txn-log.ts). */
export const TRANSACTION_STATE_TOPIC = '__transaction_state'

/** The share coordinator's internal topic (coordinator/share/share-state-topic.ts, KIP-932). */
export const SHARE_GROUP_STATE_TOPIC = '__share_group_state'

export const INTERNAL_TOPICS: ReadonlySet<string> = new Set(['__consumer_offsets', TRANSACTION_STATE_TOPIC, SHARE_GROUP_STATE_TOPIC])

export function topicNameError(name: string | null | undefined): string | undefined {
  if (name === null || name === undefined || name.length === 0) return 'Topic name is empty'
  if (name === '.' || name === '..') return `Topic name cannot be "." or ".."`
  if (name.length > MAX_TOPIC_NAME_LENGTH) {
    return `Topic name is longer than the maximum of ${MAX_TOPIC_NAME_LENGTH} characters`
  }
  if (!LEGAL.test(name)) {
    return `Topic name "${name}" is illegal, it contains a character other than ASCII alphanumerics, '.', '_' and '-'`
  }
  return undefined
}

export function validateTopicName(name: string | null | undefined): asserts name is string {
  const err = topicNameError(name)
  if (err) throw new KafkaError('INVALID_TOPIC_EXCEPTION', err)
}

/** The name with '.' mapped to '_', the form in which two names may collide. */
export function unifyCollisionChars(name: string): string {
  return name.replaceAll('.', '_')
}
