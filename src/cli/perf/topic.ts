// Finding (and, for the producing tools, creating) the topic a perf run works on.
import { createTopics, listOffsets, OffsetSpec } from '../../client/admin.js'
import type { KafkaClient } from '../../client/client.js'
import { ClientError } from '../../client/errors.js'
import type { TopicInfo } from '../../client/metadata.js'

const LEADER_WAIT_MS = 10_000

export interface EnsureTopicOptions {
  /** Create the topic when it is missing (with `partitions`, else the broker's num.partitions). */
  create: boolean
  partitions?: number
  /** For notes such as an existing topic with another partition count. */
  warn(message: string): void
}

/** The topic a producing tool (produce, e2e) writes to: created when missing, with --partitions if given. */
export function ensureProducedTopic(
  client: KafkaClient,
  o: { topic: string; partitions?: number | undefined },
  warn: (message: string) => void,
): Promise<TopicInfo> {
  return ensureTopic(client, o.topic, { create: true, ...(o.partitions !== undefined ? { partitions: o.partitions } : {}), warn })
}

/** The topic's metadata once every partition has a leader; UNKNOWN_TOPIC_OR_PARTITION if missing. */
export async function ensureTopic(client: KafkaClient, topic: string, opts: EnsureTopicOptions): Promise<TopicInfo> {
  const md = await client.metadata([topic], { refresh: true })
  const t = md.topics.get(topic)
  if (!t || t.error === 'UNKNOWN_TOPIC_OR_PARTITION') {
    if (!opts.create) throw new ClientError('UNKNOWN_TOPIC_OR_PARTITION', `topic ${topic} does not exist`)
    const [result] = await createTopics(client, [{ name: topic, numPartitions: opts.partitions ?? -1 }])
    if (result?.error && result.error !== 'TOPIC_ALREADY_EXISTS') {
      throw new ClientError(result.error, `cannot create topic ${topic}${result.message ? `: ${result.message}` : ''}`)
    }
  } else if (t.error && t.error !== 'LEADER_NOT_AVAILABLE') {
    throw new ClientError(t.error, `metadata of topic ${topic}`)
  } else if (opts.partitions !== undefined && t.partitions.length !== opts.partitions) {
    opts.warn(`topic ${topic} already exists with ${t.partitions.length} partitions (--partitions ${opts.partitions} ignored)`)
  }
  return waitForLeaders(client, topic)
}

async function waitForLeaders(client: KafkaClient, topic: string): Promise<TopicInfo> {
  const deadline = performance.now() + LEADER_WAIT_MS
  for (;;) {
    const t = (await client.metadata([topic], { refresh: true })).topics.get(topic)
    // In a cluster, a leader takes up its role a moment after Metadata names it: wait until every
    // leader answers for its partitions (ListOffsets), as a Kafka client retries until then.
    if (t && t.error === null && t.partitions.length > 0 && t.partitions.every((p) => p.leader >= 0) && (await leadersServe(client, topic)))
      return t
    if (performance.now() > deadline) {
      throw new ClientError(t?.error ?? 'LEADER_NOT_AVAILABLE', `partitions of ${topic} have no leader after ${LEADER_WAIT_MS} ms`)
    }
    await new Promise((r) => setTimeout(r, 100))
  }
}

const NOT_READY = new Set(['NOT_LEADER_OR_FOLLOWER', 'LEADER_NOT_AVAILABLE', 'UNKNOWN_TOPIC_OR_PARTITION'])

async function leadersServe(client: KafkaClient, topic: string): Promise<boolean> {
  try {
    await listOffsets(client, topic, null, OffsetSpec.Latest)
    return true
  } catch (err) {
    if (err instanceof ClientError && NOT_READY.has(err.code)) return false
    throw err
  }
}
