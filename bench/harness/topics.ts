// Topics the harness creates and deletes itself, through Tributary's own client (src/client), which
// works against both brokers and needs no Java: the 1,000-partition topics (created just before
// their run and deleted after it, so that thousands of idle partitions do not sit under the other
// scenarios) and the topics of the size scenarios (which carry a segment.bytes override in quick
// mode). The up-front topics of the other scenarios are made by BenchAdmin (Kafka's Admin client).
import { ClientError, createTopic, deleteTopics, KafkaClient, listOffsets, OffsetSpec } from '../../src/client/index.js'
import { sleep } from './util.js'

const LEADERS_TIMEOUT_MS = 120_000

async function withClient<T>(bootstrap: string, f: (client: KafkaClient) => Promise<T>): Promise<T> {
  const client = await KafkaClient.connect({ bootstrap: [bootstrap], clientId: 'bench-harness', requestTimeoutMs: 120_000 })
  try {
    return await f(client)
  } finally {
    await client.close()
  }
}

/**
 * Creates a topic (replication factor 1) and waits until every partition has a leader, as
 * BenchAdmin does, and until every leader answers for its partitions: Kafka's metadata names the
 * leaders before the broker has opened the logs, and a Produce in between fails with
 * NOT_LEADER_OR_FOLLOWER — the Java producer retries it, `tributary perf` does not. A topic that
 * already exists is fine.
 */
export async function createTopicAndWait(
  bootstrap: string,
  name: string,
  partitions: number,
  configs: Record<string, string> = {},
): Promise<void> {
  await withClient(bootstrap, async (client) => {
    const r = await createTopic(
      client,
      { name, numPartitions: partitions, replicationFactor: 1, configs },
      { timeoutMs: LEADERS_TIMEOUT_MS },
    )
    if (r.error && r.error !== 'TOPIC_ALREADY_EXISTS')
      throw new Error(`creating topic ${name} (${partitions} partitions): ${r.error}${r.message ? `: ${r.message}` : ''}`)
    const deadline = performance.now() + LEADERS_TIMEOUT_MS
    for (;;) {
      const info = (await client.metadata([name], { refresh: true })).topics.get(name)
      if (
        info &&
        !info.error &&
        info.partitions.length === partitions &&
        info.partitions.every((p) => p.leader >= 0) &&
        (await answers(client, name))
      )
        return
      if (performance.now() > deadline)
        throw new Error(
          `topic ${name}: not every one of its ${partitions} partitions has a working leader after ${LEADERS_TIMEOUT_MS / 1000} s`,
        )
      await sleep(50)
    }
  })
}

/** True when ListOffsets (latest) succeeds for every partition of the topic on its leader. */
async function answers(client: KafkaClient, topic: string): Promise<boolean> {
  try {
    await listOffsets(client, topic, null, OffsetSpec.Latest)
    return true
  } catch (err) {
    if (err instanceof ClientError && err.retriable) return false
    throw err
  }
}

/** Deletes a topic; failures are returned as a message (the harness only reports them). */
export async function deleteTopic(bootstrap: string, name: string): Promise<string | null> {
  try {
    const [r] = await withClient(bootstrap, (client) => deleteTopics(client, [name], { timeoutMs: LEADERS_TIMEOUT_MS }))
    return r?.error ? `deleting topic ${name}: ${r.error}${r.message ? `: ${r.message}` : ''}` : null
  } catch (err) {
    return `deleting topic ${name}: ${(err as Error).message}`
  }
}
