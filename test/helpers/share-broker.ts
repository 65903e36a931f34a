// What the share-group tests (test/integration/share-node.test.ts, cli-share.test.ts) share: the
// broker they run against, and the group settings a test needs before it consumes.
//
// The broker is a Tributary process (test/helpers/broker-process.ts). With SHARE_TEST_BROKER=kafka
// in the environment it is Apache Kafka 4.x instead (test/helpers/apache-kafka.ts, formatted with
// share.version=1): the same tests then check themselves against Kafka's own share groups.
import { alterGroupConfigs } from '../../src/client/admin-topics.js'
import { ErrorCode } from '../../src/protocol/errors.js'
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

/** Sets group configs (share.auto.offset.reset, share.record.lock.duration.ms, …) with IncrementalAlterConfigs. */
export async function setGroupConfigs(client: KafkaClient, groupId: string, configs: Record<string, string>): Promise<void> {
  const changes = Object.entries(configs).map(([name, value]) => ({ name, op: 'set' as const, value }))
  const r = await alterGroupConfigs(client, groupId, changes)
  if (r.error !== null) throwIfError(ErrorCode[r.error].code, `IncrementalAlterConfigs group ${groupId}`, r.message)
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
