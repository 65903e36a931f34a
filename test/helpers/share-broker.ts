// What the share-group tests (test/integration/share-node.test.ts, cli-share.test.ts) share: the
// broker they run against, and the group settings a test needs before it consumes.
//
// The broker is a Tributary process (test/helpers/broker-process.ts). With SHARE_TEST_BROKER=kafka
// in the environment it is Apache Kafka 4.x instead (test/helpers/apache-kafka.ts, formatted with
// share.version=1): the same tests then check themselves against Kafka's own share groups.
import {
  ConfigOperation,
  IncrementalAlterConfigsRequest,
  IncrementalAlterConfigsResponse,
} from '../../src/protocol/messages/44-incremental-alter-configs.js'
import type { KafkaClient } from '../../src/client/client.js'
import { throwIfError } from '../../src/client/errors.js'
import { Producer } from '../../src/client/producer.js'
import { startApacheKafka } from './apache-kafka.js'
import { startBrokerProcess, stopAndCheck } from './broker-process.js'

export interface ShareBroker {
  /** 'tributary' or 'kafka <version>'. */
  readonly kind: string
  readonly bootstrap: string
  logTail(): string
  stop(): Promise<void>
}

export const againstKafka = (): boolean => process.env.SHARE_TEST_BROKER === 'kafka'

export async function startShareBroker(overrides: Record<string, string> = {}): Promise<ShareBroker> {
  if (againstKafka()) {
    const k = await startApacheKafka()
    return { kind: `kafka ${k.version}`, bootstrap: k.bootstrap, logTail: () => k.logTail(), stop: () => k.stop() }
  }
  const b = await startBrokerProcess({ overrides: { 'group.initial.rebalance.delay.ms': '0', ...overrides } })
  return { kind: 'tributary', bootstrap: b.bootstrap, logTail: () => b.stderr().slice(-6000), stop: () => stopAndCheck(b) }
}

/** Kafka's GROUP config resource (KIP-848/932 group configs). */
const RESOURCE_GROUP = 32

/** Sets group configs (share.auto.offset.reset, share.record.lock.duration.ms, …) with IncrementalAlterConfigs. */
export async function setGroupConfigs(client: KafkaClient, groupId: string, configs: Record<string, string>): Promise<void> {
  const res = await client.request(IncrementalAlterConfigsRequest, IncrementalAlterConfigsResponse, {
    resources: [
      {
        resourceType: RESOURCE_GROUP,
        resourceName: groupId,
        configs: Object.entries(configs).map(([name, value]) => ({ name, configOperation: ConfigOperation.SET, value })),
      },
    ],
    validateOnly: false,
  })
  for (const r of res.responses) throwIfError(r.errorCode, `IncrementalAlterConfigs group ${groupId}`, r.errorMessage)
}

/** Produces values (as utf8) to one partition and waits until they are stored. */
export async function produceValues(client: KafkaClient, topic: string, values: string[], partition = 0): Promise<void> {
  const p = await Producer.create(client, { topic, lingerMs: 0, autoCreateTopic: false })
  try {
    for (const v of values) p.send({ key: null, value: Buffer.from(v), partition })
    await p.flush()
  } finally {
    p.close()
  }
}
