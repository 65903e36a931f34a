// The broker's DeadLetterSink (ports/shares.ts; KIP-1191 dead-letter queues for share groups, as
// Kafka 4.4 writes them): records a share group gives up (REJECTed, or past the delivery limit) are
// written to the group's dead-letter topic before their archive is persisted, so each reaches it at
// least once.
//
// A topic takes dead letters only when it opted in: its name starts with the broker's
// errors.deadletterqueue.topic.name.prefix ("dlq." by default; "" for any name) and it has
// errors.deadletterqueue.group.enable=true. A missing topic is created so (the broker's
// num.partitions and default.replication.factor) only with errors.deadletterqueue.auto.create.topics.enable.
// Otherwise the letters are refused as Kafka refuses them — logged, and the records archived
// without one: a misconfigured dead-letter topic never holds a group's acknowledgements back.
//
// Each dead letter is one record: the source record's key, value and headers when the group copies
// records (errors.deadletterqueue.copy.record.enable), else no key and no value; in both cases
// Kafka's headers naming its source — __dlq.errors.topic, .partition, .offset, .group,
// .delivery.count and .message (why it was given up), values as UTF-8 text. Its partition: the
// murmur2 hash of the key as Kafka's producer picks it, else round robin. A partition this broker
// leads is appended to directly (acks=all, the topic's min.insync.replicas); another leader's is
// produced to through Tributary's own client.
import type { ClientSecurity } from '../client/security.js'
import { KafkaClient } from '../client/client.js'
import { partitionForKey } from '../client/partitioner.js'
import { Producer } from '../client/producer.js'
import type { ProducerRecord } from '../client/producer-batch.js'
import { KafkaError } from '../protocol/errors.js'
import { buildRecordBatch, type RecordHeader } from '../protocol/records/builder.js'
import type { HostedReplica, ReplicaService } from '../ports/replicas.js'
import type { DeadLetter, DeadLetterSink } from '../ports/shares.js'
import type { TopicService } from '../ports/topics.js'
import type { Clock } from '../util/clock.js'
import type { Logger } from '../util/logger.js'

/** How long a dead letter waits for a newly created topic's partition to get a leader. */
const LEADER_WAIT_MS = 10_000
const LEADER_POLL_MS = 50
const WRITE_TIMEOUT_MS = 30_000

export interface BrokerDeadLetterSinkOptions {
  nodeId: number
  topics: Pick<TopicService, 'get' | 'create' | 'partitionState' | 'effectiveConfig'>
  replicas: Pick<ReplicaService, 'get' | 'require' | 'append'>
  clock: Clock
  logger: Logger
  messageMaxBytes: number
  /** host:port of this cluster's brokers, for writing to a partition led elsewhere. */
  bootstrap: () => string[]
  /** How to log in on the inter-broker listener. */
  security?: ClientSecurity
  /** errors.deadletterqueue.topic.name.prefix, read when used (a dynamic broker config). */
  topicPrefix: () => string
  /** errors.deadletterqueue.auto.create.topics.enable, read when used. */
  autoCreate: () => boolean
}

const REASON_MESSAGES: Record<DeadLetter['reason'], string> = {
  rejected: 'The record was rejected by a consumer of the share group.',
  'delivery-limit': 'The record reached the share group\u2019s delivery count limit.',
}

/** The headers a dead letter carries about its source. */
export function deadLetterHeaders(l: DeadLetter): RecordHeader[] {
  const text = (s: string | number) => Buffer.from(String(s), 'utf8')
  return [
    { key: '__dlq.errors.topic', value: text(l.source.topic) },
    { key: '__dlq.errors.partition', value: text(l.source.partition) },
    { key: '__dlq.errors.offset', value: text(l.source.offset) },
    { key: '__dlq.errors.group', value: text(l.groupId) },
    { key: '__dlq.errors.delivery.count', value: text(l.deliveryCount) },
    { key: '__dlq.errors.message', value: text(REASON_MESSAGES[l.reason]) },
  ]
}

export class BrokerDeadLetterSink implements DeadLetterSink {
  private readonly roundRobin = new Map<string, number>()
  private client: Promise<KafkaClient> | undefined

  constructor(private readonly o: BrokerDeadLetterSinkOptions) {}

  async send(letters: DeadLetter[]): Promise<void> {
    const byTopic = new Map<string, DeadLetter[]>()
    for (const l of letters) {
      let list = byTopic.get(l.topic)
      if (!list) byTopic.set(l.topic, (list = []))
      list.push(l)
    }
    for (const [topic, list] of byTopic) await this.sendTo(topic, list)
  }

  async close(): Promise<void> {
    const c = this.client
    this.client = undefined
    if (c) await (await c.catch(() => null))?.close()
  }

  private async sendTo(topic: string, letters: DeadLetter[]): Promise<void> {
    const record = await this.deadLetterTopic(topic)
    if (record === null) return
    const byPartition = new Map<number, ProducerRecord[]>()
    for (const l of letters) {
      const r: ProducerRecord = {
        key: l.record?.key ?? null,
        value: l.record?.value ?? null,
        headers: [...(l.record?.headers ?? []), ...deadLetterHeaders(l)],
        timestamp: this.o.clock.now(),
      }
      const partition = r.key ? partitionForKey(r.key, record.partitions) : this.next(topic, record.partitions)
      let list = byPartition.get(partition)
      if (!list) byPartition.set(partition, (list = []))
      list.push(r)
    }
    for (const [partition, records] of byPartition) {
      const leader = await this.leaderOf(topic, partition)
      if (leader === this.o.nodeId) await this.appendLocal(this.o.replicas.require(topic, partition), records)
      else await this.produceRemote(topic, partition, records)
    }
  }

  /** The topic when it takes dead letters (created if missing and allowed); null after logging why not. */
  private async deadLetterTopic(topic: string) {
    const refuse = (why: string) => {
      this.o.logger.warn('dead letters refused', { topic, why })
      return null
    }
    const prefix = this.o.topicPrefix()
    if (!topic.startsWith(prefix)) return refuse(`the name does not start with errors.deadletterqueue.topic.name.prefix "${prefix}"`)
    const existing = this.o.topics.get(topic)
    if (!existing) {
      if (!this.o.autoCreate()) return refuse('no such topic, and errors.deadletterqueue.auto.create.topics.enable is false')
      return this.create(topic)
    }
    if (this.o.topics.effectiveConfig(existing)['errors.deadletterqueue.group.enable'] !== true)
      return refuse('the topic does not have errors.deadletterqueue.group.enable=true')
    return existing
  }

  private async create(topic: string) {
    try {
      const configs = [{ name: 'errors.deadletterqueue.group.enable', value: 'true' }]
      return await this.o.topics.create({ name: topic, numPartitions: -1, replicationFactor: -1, assignments: [], configs }, false)
    } catch (err) {
      const existing = this.o.topics.get(topic)
      if (existing) return existing
      throw err
    }
  }

  private next(topic: string, partitions: number): number {
    const n = this.roundRobin.get(topic) ?? 0
    this.roundRobin.set(topic, (n + 1) % 0x7fffffff)
    return n % partitions
  }

  /** The partition's leader once it has one (and, when it is this broker, once its replica is here). */
  private async leaderOf(topic: string, partition: number): Promise<number> {
    const until = this.o.clock.monotonic() + LEADER_WAIT_MS
    for (;;) {
      const leader = this.o.topics.partitionState(topic, partition)?.leader ?? -1
      if (leader >= 0 && (leader !== this.o.nodeId || this.hostsLeader(topic, partition))) return leader
      if (this.o.clock.monotonic() >= until)
        throw new KafkaError('LEADER_NOT_AVAILABLE', `dead-letter topic ${topic}-${partition} has no leader`)
      await new Promise<void>((resolve) => this.o.clock.setTimeout(resolve, LEADER_POLL_MS))
    }
  }

  private hostsLeader(topic: string, partition: number): boolean {
    try {
      this.o.replicas.require(topic, partition)
      return true
    } catch {
      return false
    }
  }

  private async appendLocal(replica: HostedReplica, records: ProducerRecord[]): Promise<void> {
    const now = this.o.clock.now()
    const batch = buildRecordBatch({
      baseTimestamp: now,
      records: records.map((r) => ({ key: r.key, value: r.value, headers: r.headers ?? [], timestamp: r.timestamp ?? now })),
    })
    const topic = this.o.topics.get(replica.topic)
    const minIsr = topic ? this.o.topics.effectiveConfig(topic)['min.insync.replicas'] : 1
    await this.o.replicas.append(replica, batch, this.o.messageMaxBytes, {
      logAppendTime: false,
      beforeMaxMs: Number.MAX_SAFE_INTEGER,
      afterMaxMs: Number.MAX_SAFE_INTEGER,
      acks: -1,
      minInsyncReplicas: minIsr,
      timeoutMs: WRITE_TIMEOUT_MS,
    })
  }

  private async produceRemote(topic: string, partition: number, records: ProducerRecord[]): Promise<void> {
    this.client ??= KafkaClient.connect({
      bootstrap: this.o.bootstrap(),
      clientId: `tributary-dlq-${this.o.nodeId}`,
      ...(this.o.security ? { security: this.o.security } : {}),
    })
    const client = await this.client.catch((err) => {
      this.client = undefined
      throw err
    })
    const failures: Error[] = []
    const producer = await Producer.create(client, {
      topic,
      acks: -1,
      autoCreateTopic: false,
      deliveryTimeoutMs: WRITE_TIMEOUT_MS,
      onDelivery: (r) => {
        if (r.error) failures.push(r.error)
      },
    })
    try {
      for (const r of records) producer.send({ ...r, partition })
      await producer.flush()
    } finally {
      producer.close()
    }
    if (failures.length > 0) throw failures[0]
  }
}
