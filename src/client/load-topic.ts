// Waiting for a topic to be usable by a producer: the metadata of a topic that exists, or that the
// broker creates on a Metadata request (auto.create.topics.enable), as Kafka's producer does.
import { DescribeConfigsRequest, DescribeConfigsResponse } from '../protocol/messages/32-describe-configs.js'
import type { KafkaClient } from './client.js'
import { ClientError } from './errors.js'
import type { TopicInfo } from './metadata.js'

/**
 * The topic's metadata once it lists partitions: asks the broker to create it when autoCreate,
 * waits up to waitMs while it is being created, and throws a ClientError
 * UNKNOWN_TOPIC_OR_PARTITION when it does not exist and will not be created.
 *
 * A missing topic is answered differently by brokers that create it: Tributary creates it before
 * answering, Kafka with ZooKeeper answered LEADER_NOT_AVAILABLE, and Kafka in KRaft mode answers
 * UNKNOWN_TOPIC_OR_PARTITION while its controller creates it — the same answer as a broker that
 * will not. So on UNKNOWN_TOPIC_OR_PARTITION the broker's auto.create.topics.enable is looked up
 * (DescribeConfigs): false fails at once, otherwise Metadata is asked again until waitMs.
 */
export async function loadTopic(client: KafkaClient, topic: string, autoCreate: boolean, waitMs: number): Promise<TopicInfo> {
  const deadline = performance.now() + waitMs
  let creates: boolean | undefined
  for (;;) {
    const info = (await client.metadata([topic], { refresh: true, autoCreate })).topics.get(topic)
    const missing = !info || info.error === 'UNKNOWN_TOPIC_OR_PARTITION'
    if (missing) {
      creates ??= autoCreate && (await brokerCreatesTopics(client))
      if (!creates || performance.now() > deadline) throw new ClientError('UNKNOWN_TOPIC_OR_PARTITION', `topic '${topic}' does not exist`)
    } else if (info.error === null && info.partitions.length > 0) {
      return info
    } else if (info.error !== null && info.error !== 'LEADER_NOT_AVAILABLE') {
      throw new ClientError(info.error, `topic '${topic}'`)
    } else if (performance.now() > deadline) {
      throw new ClientError('LEADER_NOT_AVAILABLE', `topic '${topic}' has no partitions after ${waitMs} ms`)
    }
    await new Promise((r) => setTimeout(r, 100))
  }
}

const RESOURCE_BROKER = 4

/** Whether the broker says auto.create.topics.enable=true (true when it cannot tell: the wait decides). */
async function brokerCreatesTopics(client: KafkaClient): Promise<boolean> {
  const [broker] = client.cluster.brokers.keys()
  if (broker === undefined) return true
  try {
    const res = await client.request(
      DescribeConfigsRequest,
      DescribeConfigsResponse,
      {
        resources: [{ resourceType: RESOURCE_BROKER, resourceName: String(broker), configurationKeys: ['auto.create.topics.enable'] }],
        includeSynonyms: false,
        includeDocumentation: false,
      },
      { nodeId: broker },
    )
    const value = res.results[0]?.configs.find((c) => c.name === 'auto.create.topics.enable')?.value
    return value !== 'false'
  } catch {
    return true
  }
}
