// The chaos workload: producers and consumers on one topic of a cluster, each operation logged to
// the run's history (history.ts) with its outcome, for checker.ts.
//
// Producers (each one record at a time, partition n % partitions, values "<name>-<n>" unique):
//   trib-idem-*  Tributary's client library (src/client/producer.ts) with an idempotent identity
//                from InitProducerId, acks=all;
//   kjs-idem-*   kafkajs, idempotent: true (acks=all, one request in flight);
//   trib-txn-*   (with transactions) TransactionalProducer: 1–3 values per transaction, about one
//                in four aborted on purpose.
// A send acknowledged is ok with its offset; any error is info (unknown: a timeout or a lost
// connection may have stored it). After an error a producer is made anew (a new producer id), as
// an application would after an idempotent producer's fatal error, so one lost answer does not
// stall it on OUT_OF_ORDER_SEQUENCE_NUMBER.
// Consumers:
//   trib-assign-*   Tributary's Fetcher assigned every partition from offset 0 (read_uncommitted;
//                   with transactions also a read_committed one); each poll is logged, a reset
//                   after OFFSET_OUT_OF_RANGE is logged as a new assignment;
//   kjs-group-*     kafkajs consumers of one classic consumer group (subscribe, kafkajs's default
//                   read_committed); each batch is a poll, each GROUP_JOIN a new assignment.
//   share-*         (with shareMembers) Tributary ShareConsumers of one share group (KIP-932) on
//                   the same topic, share.auto.offset.reset=earliest: every record handed to a
//                   member is logged (with its delivery count) and acknowledged at once — most
//                   ACCEPT, a seeded few RELEASE (handed out again) or REJECT (archived), and a
//                   seeded few "poison" records released at every delivery until the delivery
//                   count limit archives them; each acknowledgement's outcome (the consumer's
//                   onAcknowledgement) is logged when known, and one never answered is logged
//                   unknown when its ShareConsumer closes. A ShareConsumer that fails is closed
//                   and made anew (a new member id) under the same name.
//   java-share-*    (with javaShareMembers) the same through Apache Kafka's Java KafkaShareConsumer
//                   (test/interop/java's ShareChaosMember, explicit acknowledgement), one JVM each,
//                   its lines turned into the same ops; a JVM that exits is started again.
//   shareDrain keeps both kinds polling after the faults healed until every acknowledged send
//   was handed to one of them.
// The final read (finalRead) reads every partition from 0 to its high watermark with a fresh
// Fetcher, after the faults have healed, so an acknowledged write no one read is a lost one.
// Random choices come from the run's seeded generator; what the brokers do is not seeded.
import { Kafka, logLevel, type Producer as KProducer } from 'kafkajs'
import { listOffsets, OffsetSpec } from '../../src/client/admin.js'
import { alterGroupConfigs } from '../../src/client/admin-topics.js'
import { KafkaClient } from '../../src/client/client.js'
import { Fetcher, type IsolationLevel } from '../../src/client/consumer.js'
import { Producer } from '../../src/client/producer.js'
import { type AcknowledgementResult, ShareConsumer } from '../../src/client/share-consumer.js'
import { TransactionalProducer } from '../../src/client/transactional-producer.js'
import { InitProducerIdRequest, InitProducerIdResponse } from '../../src/protocol/messages/22-init-producer-id.js'
import { sleep } from '../helpers/clients.js'
import { javaCommand } from '../helpers/run-process.js'
import { javaEnv, LineProcess } from '../interop/txn-broker.js'
import type { History, Op, PollOp, SendOp, ShareAckKind, ShareAckOutcome } from './history.js'

export interface WorkloadOptions {
  bootstrap: () => string[]
  topic: string
  partitions: number
  groupId: string
  transactions: boolean
  random: () => number
  /** Members of the share group (0: none). */
  shareMembers?: number
  /** The share group's id. Default `${groupId}-share`. */
  shareGroupId?: string
  /** Members through the Java KafkaShareConsumer, and the classpath of test/interop/java's programs. */
  javaShareMembers?: number
  javaClasspath?: string
}

/** The share group's settings: its members start at the log's start, and records lock 15 s
 * (group.share.min.record.lock.duration.ms) so one a crashed member held comes back soon. */
export const SHARE_DELIVERY_COUNT_LIMIT = 3
const SHARE_LOCK_MS = 15_000
/** After a poll that brought fewer records than this, a member waits SHARE_IDLE_MS before the next:
 * the broker answers a ShareFetch as soon as one record is acquired, so members polling flat out
 * would cost a round trip per record of CPU the two cores' brokers need. */
const SHARE_FEW_RECORDS = 50
const SHARE_IDLE_MS = 100
/** Per delivery: RELEASE below this draw, REJECT below the next, ACCEPT above. */
const SHARE_RELEASE = 0.08
const SHARE_REJECT = 0.12
/**
 * Poison records (released at every delivery, until the delivery count limit archives them): one
 * in 50, by an FNV-1a hash of "seed:value" that ShareChaosMember.java computes the same way, so
 * Node and Java members agree on them.
 */
export function sharePoison(seed: number, value: string): boolean {
  let h = 0x811c9dc5
  for (const b of Buffer.from(`${seed}:${value}`)) h = Math.imul(h ^ b, 0x01000193)
  return (h >>> 0) % 50 === 0
}
/** Exception classes of Java's AcknowledgementCommitCallback after which the ack was certainly not applied. */
const JAVA_ACK_FAILED = new Set([
  'InvalidRecordStateException',
  'ShareSessionNotFoundException',
  'InvalidShareSessionEpochException',
  'UnknownMemberIdException',
  'FencedMemberEpochException',
  'NotLeaderOrFollowerException',
  'FencedLeaderEpochException',
  'UnknownTopicOrPartitionException',
  'UnknownTopicIdException',
])
/** Acknowledgement errors after which the leader certainly did not apply it. */
const SHARE_ACK_FAILED = new Set([
  'INVALID_RECORD_STATE',
  'SHARE_SESSION_NOT_FOUND',
  'INVALID_SHARE_SESSION_EPOCH',
  'UNKNOWN_MEMBER_ID',
  'FENCED_MEMBER_EPOCH',
  'NOT_LEADER_OR_FOLLOWER',
  'FENCED_LEADER_EPOCH',
  'UNKNOWN_TOPIC_OR_PARTITION',
  'UNKNOWN_TOPIC_ID',
])

const CLIENT_TIMEOUTS = { requestTimeoutMs: 8000, connectTimeoutMs: 3000 }
const DELIVERY_TIMEOUT_MS = 20_000
const PAUSE_AFTER_ERROR_MS = 300

const describe = (e: unknown) => (e instanceof Error ? `${e.name}: ${e.message}` : String(e))

export class Workload {
  readonly history: History = []
  private readonly start = Date.now()
  private stopping = false
  private consumersStopping = false
  private readonly loops: Promise<void>[] = []
  private readonly consumerLoops: Promise<void>[] = []
  private readonly closers: Array<() => Promise<void>> = []
  private readonly shareLoops: Promise<void>[] = []
  private shareStopping = false
  /** Values handed to a share member. */
  private readonly shareHanded = new Set<string>()
  /** The seed of the poison hash (sharePoison), drawn once. */
  private readonly shareSeed: number

  constructor(private readonly opts: WorkloadOptions) {
    this.shareSeed = Math.floor(opts.random() * 2 ** 31)
  }

  now(): number {
    return Date.now() - this.start
  }

  log(op: Op): void {
    this.history.push(op)
  }

  counts(): { sendsOk: number; sendsUnknown: number; polls: number; read: number; shareDelivered: number } {
    let sendsOk = 0
    let sendsUnknown = 0
    let polls = 0
    let read = 0
    let shareDelivered = 0
    for (const op of this.history) {
      if (op.type === 'send') op.outcome === 'ok' ? sendsOk++ : sendsUnknown++
      else if (op.type === 'poll') {
        polls++
        read += op.records.length
      } else if (op.type === 'share-delivery') shareDelivered++
    }
    return { sendsOk, sendsUnknown, polls, read, shareDelivered }
  }

  private get shareGroupId(): string {
    return this.opts.shareGroupId ?? `${this.opts.groupId}-share`
  }

  /** Sets the share group's configs (before any member joins, so it starts at offset 0). */
  async prepare(): Promise<void> {
    if (!this.opts.shareMembers && !this.opts.javaShareMembers) return
    const client = await this.connect()
    try {
      const r = await alterGroupConfigs(client, this.shareGroupId, [
        { name: 'share.auto.offset.reset', op: 'set', value: 'earliest' },
        { name: 'share.delivery.count.limit', op: 'set', value: String(SHARE_DELIVERY_COUNT_LIMIT) },
        { name: 'share.record.lock.duration.ms', op: 'set', value: String(SHARE_LOCK_MS) },
      ])
      if (r.error) throw new Error(`share group configs: ${r.error} ${r.message ?? ''}`)
    } finally {
      await client.close().catch(() => {})
    }
    this.log({
      type: 'share-group',
      process: 'share',
      time: this.now(),
      group: this.shareGroupId,
      topic: this.opts.topic,
      deliveryCountLimit: SHARE_DELIVERY_COUNT_LIMIT,
    })
  }

  /** Starts every producer and consumer. */
  run(): void {
    for (const name of ['trib-idem-1', 'trib-idem-2']) this.loops.push(this.tributaryProducer(name))
    this.loops.push(this.kafkajsProducer('kjs-idem-1'))
    if (this.opts.transactions) this.loops.push(this.transactionalProducer('trib-txn-1'))
    this.consumerLoops.push(this.assignConsumer('trib-assign-1', 'read_uncommitted'))
    if (this.opts.transactions) this.consumerLoops.push(this.assignConsumer('trib-assign-rc', 'read_committed'))
    for (const name of ['kjs-group-1', 'kjs-group-2']) this.consumerLoops.push(this.groupConsumer(name))
    for (let i = 1; i <= (this.opts.shareMembers ?? 0); i++) this.shareLoops.push(this.shareMember(`share-${i}`))
    for (let i = 1; i <= (this.opts.javaShareMembers ?? 0); i++) this.shareLoops.push(this.javaShareMember(`java-share-${i}`))
  }

  /**
   * Lets the share members go on until every acknowledged send was handed to one of them (or
   * deadlineMs passed), then stops them. Returns how many acknowledged sends they were not handed.
   */
  async shareDrain(deadlineMs: number): Promise<number> {
    if (this.shareLoops.length === 0) return 0
    const until = Date.now() + deadlineMs
    const missing = () => {
      let n = 0
      for (const op of this.history) if (op.type === 'send' && op.outcome === 'ok' && !this.shareHanded.has(op.value)) n++
      return n
    }
    let left = missing()
    while (left > 0 && Date.now() < until) {
      await sleep(500)
      left = missing()
    }
    this.shareStopping = true
    await Promise.all(this.shareLoops)
    return left
  }

  /** Stops the producers (their last sends complete). */
  async stopProducers(): Promise<void> {
    this.stopping = true
    await Promise.all(this.loops)
  }

  /** Stops the consumers. */
  async stopConsumers(): Promise<void> {
    this.consumersStopping = true
    this.shareStopping = true
    await Promise.all(this.shareLoops)
    await Promise.all(this.consumerLoops)
    await Promise.all(this.closers.map((c) => c().catch(() => {})))
  }

  private partitionOf(n: number): number {
    return n % this.opts.partitions
  }

  private async connect(): Promise<KafkaClient> {
    return KafkaClient.connect({ bootstrap: this.opts.bootstrap(), ...CLIENT_TIMEOUTS })
  }

  private sendOp(process: string, partition: number, value: string, offset: number | null, error?: unknown, txn?: string): SendOp {
    return {
      type: 'send',
      process,
      time: this.now(),
      partition,
      value,
      outcome: offset === null ? 'info' : 'ok',
      ...(offset === null ? { error: describe(error) } : { offset }),
      ...(txn ? { txn } : {}),
    }
  }

  private async tributaryProducer(name: string): Promise<void> {
    let n = 0
    while (!this.stopping) {
      let client: KafkaClient | undefined
      let producer: Producer | undefined
      try {
        client = await this.connect()
        const id = await client.request(InitProducerIdRequest, InitProducerIdResponse, {
          transactionalId: null,
          transactionTimeoutMs: 60_000,
          producerId: -1,
          producerEpoch: -1,
        })
        if (id.errorCode !== 0) throw new Error(`InitProducerId: error ${id.errorCode}`)
        const identity = {
          producerId: Number(id.producerId),
          producerEpoch: id.producerEpoch,
          transactionalId: null,
          maxProduceVersion: 1000,
        }
        let delivered: ((r: { offset: number } | { error: unknown }) => void) | undefined
        producer = await Producer.create(client, {
          topic: this.opts.topic,
          acks: -1,
          lingerMs: 0,
          deliveryTimeoutMs: DELIVERY_TIMEOUT_MS,
          autoCreateTopic: false,
          identity,
          onDelivery: (r) => delivered?.(r.error ? { error: r.error } : { offset: r.baseOffset }),
        })
        while (!this.stopping) {
          const value = `${name}-${n}`
          const partition = this.partitionOf(n++)
          const outcome = await new Promise<{ offset: number } | { error: unknown }>((resolve) => {
            delivered = resolve
            producer!.send({ key: null, value: Buffer.from(value), partition })
          })
          if ('offset' in outcome) this.log(this.sendOp(name, partition, value, outcome.offset))
          else {
            this.log(this.sendOp(name, partition, value, null, outcome.error))
            break // a new producer id
          }
        }
      } catch (err) {
        if (this.stopping) break
        void err
      } finally {
        producer?.close()
        await client?.close().catch(() => {})
      }
      if (!this.stopping) await sleep(PAUSE_AFTER_ERROR_MS)
    }
  }

  private kafka(name: string): Kafka {
    return new Kafka({
      clientId: name,
      brokers: this.opts.bootstrap(),
      logLevel: logLevel.NOTHING,
      connectionTimeout: 3000,
      requestTimeout: 8000,
      retry: { retries: 8, initialRetryTime: 100, maxRetryTime: 1000 },
    })
  }

  private async kafkajsProducer(name: string): Promise<void> {
    let n = 0
    while (!this.stopping) {
      let producer: KProducer | undefined
      try {
        producer = this.kafka(name).producer({ idempotent: true, maxInFlightRequests: 1, allowAutoTopicCreation: false })
        await producer.connect()
        while (!this.stopping) {
          const value = `${name}-${n}`
          const partition = this.partitionOf(n++)
          try {
            const [meta] = await producer.send({ topic: this.opts.topic, acks: -1, messages: [{ value, partition }] })
            this.log(this.sendOp(name, partition, value, Number(meta!.baseOffset)))
          } catch (err) {
            this.log(this.sendOp(name, partition, value, null, err))
            break
          }
        }
      } catch {
        // connect failed: try again
      } finally {
        await producer?.disconnect().catch(() => {})
      }
      if (!this.stopping) await sleep(PAUSE_AFTER_ERROR_MS)
    }
  }

  private async transactionalProducer(name: string): Promise<void> {
    let n = 0
    let t = 0
    while (!this.stopping) {
      let client: KafkaClient | undefined
      let txn: TransactionalProducer | undefined
      const offsets = new Map<string, number | Error>()
      try {
        client = await this.connect()
        txn = await TransactionalProducer.create(client, {
          transactionalId: name,
          transactionTimeoutMs: 15_000,
          maxBlockMs: 15_000,
          lingerMs: 0,
          deliveryTimeoutMs: DELIVERY_TIMEOUT_MS,
          onDelivery: (_topic, r) => {
            r.records.forEach((rec, i) => {
              offsets.set(rec.value!.toString(), r.error ?? r.baseOffset + i)
            })
          },
        })
        await txn.initTransactions()
        while (!this.stopping) {
          const id = `${name}-t${t++}`
          const values: Array<{ value: string; partition: number }> = []
          txn.beginTransaction()
          const count = 1 + Math.floor(this.opts.random() * 3)
          const abort = this.opts.random() < 0.25
          let outcome: 'committed' | 'aborted' | 'info' = 'info'
          let endAsked = this.now()
          try {
            for (let i = 0; i < count; i++) {
              const value = `${name}-${n}`
              const partition = this.partitionOf(n++)
              values.push({ value, partition })
              await txn.send(this.opts.topic, { key: null, value: Buffer.from(value), partition })
            }
            endAsked = this.now()
            if (abort) await txn.abortTransaction()
            else await txn.commitTransaction()
            outcome = abort ? 'aborted' : 'committed'
          } catch (err) {
            endAsked = this.now()
            // A failed commit is an unknown outcome; try an abort so the producer can go on.
            await txn.abortTransaction().catch(() => {})
            void err
          }
          for (const v of values) {
            const o = offsets.get(v.value)
            this.log(this.sendOp(name, v.partition, v.value, typeof o === 'number' ? o : null, o ?? 'no delivery report', id))
          }
          this.log({ type: 'txn', process: name, time: endAsked, txn: id, outcome })
          if (outcome === 'info') break
        }
      } catch {
        // init failed: a new producer
      } finally {
        await txn?.close().catch(() => {})
        await client?.close().catch(() => {})
      }
      if (!this.stopping) await sleep(PAUSE_AFTER_ERROR_MS)
    }
  }

  private logPolls(
    name: string,
    isolation: IsolationLevel,
    fetched: Array<{ partition: number; records: Array<{ offset: number; value: string }> }>,
  ) {
    for (const f of fetched) {
      if (f.records.length === 0) continue
      const op: PollOp = { type: 'poll', process: name, time: this.now(), partition: f.partition, records: f.records, isolation }
      this.log(op)
    }
  }

  private async assignConsumer(name: string, isolation: IsolationLevel): Promise<void> {
    const positions = new Map<number, number>()
    for (let p = 0; p < this.opts.partitions; p++) positions.set(p, 0)
    this.log({ type: 'assign', process: name, time: this.now(), partitions: [...positions.keys()] })
    while (!this.consumersStopping) {
      let client: KafkaClient | undefined
      try {
        client = await this.connect()
        const fetcher = new Fetcher(client, {
          maxWaitMs: 300,
          isolationLevel: isolation,
          autoOffsetReset: 'earliest',
          onOffsetReset: (tp) => this.log({ type: 'assign', process: name, time: this.now(), partitions: [tp.partition] }),
        })
        fetcher.assign([...positions].map(([partition, offset]) => ({ topic: this.opts.topic, partition, offset })))
        while (!this.consumersStopping) {
          const fetched = await fetcher.poll()
          this.logPolls(
            name,
            isolation,
            fetched.map((f) => ({
              partition: f.partition,
              records: f.records.map((r) => ({ offset: r.offset, value: r.value?.toString() ?? '' })),
            })),
          )
          for (const p of fetcher.positions()) positions.set(p.partition, p.offset)
        }
      } catch {
        // a new client, from the positions reached
      } finally {
        await client?.close().catch(() => {})
      }
      if (!this.consumersStopping) await sleep(PAUSE_AFTER_ERROR_MS)
    }
  }

  private async groupConsumer(name: string): Promise<void> {
    const consumer = this.kafka(name).consumer({
      groupId: this.opts.groupId,
      sessionTimeout: 10_000,
      heartbeatInterval: 1000,
      rebalanceTimeout: 10_000,
      maxWaitTimeInMs: 300,
      retry: { retries: 20, initialRetryTime: 100, maxRetryTime: 1000 },
    })
    consumer.on(consumer.events.GROUP_JOIN, (e) => {
      this.log({ type: 'assign', process: name, time: this.now(), partitions: e.payload.memberAssignment[this.opts.topic] ?? [] })
    })
    this.closers.push(() => consumer.disconnect())
    try {
      await consumer.connect()
      await consumer.subscribe({ topics: [this.opts.topic], fromBeginning: true })
      await consumer.run({
        eachBatch: async ({ batch }) => {
          // kafkajs reads read_committed unless told readUncommitted.
          this.logPolls(name, 'read_committed', [
            {
              partition: batch.partition,
              records: batch.messages.map((m) => ({ offset: Number(m.offset), value: m.value?.toString() ?? '' })),
            },
          ])
        },
      })
    } catch {
      // counted as a consumer that read nothing more
    }
    while (!this.consumersStopping) await sleep(200)
  }

  /** The acknowledgement of one delivery: seeded, the same kind for every delivery of a poison record. */
  private shareAckKind(value: string): ShareAckKind {
    this.shareHanded.add(value)
    if (sharePoison(this.shareSeed, value)) return 'release'
    const r = this.opts.random()
    return r < SHARE_RELEASE ? 'release' : r < SHARE_REJECT ? 'reject' : 'accept'
  }

  /**
   * Logs the outcome of an acknowledgement still waiting in `waiting` ("partition:offset" → the
   * delivery's kind and count) as a share-ack operation, once.
   */
  private shareAckLogger(
    name: string,
    member: () => string,
    waiting: Map<string, { kind: ShareAckKind; deliveryCount: number }>,
  ): (partition: number, offset: number, outcome: ShareAckOutcome, error?: string) => void {
    return (partition, offset, outcome, error) => {
      const w = waiting.get(`${partition}:${offset}`)
      if (!w) return
      waiting.delete(`${partition}:${offset}`)
      this.log({
        type: 'share-ack',
        process: name,
        member: member(),
        time: this.now(),
        partition,
        offset,
        deliveryCount: w.deliveryCount,
        kind: w.kind,
        outcome,
        ...(error ? { error } : {}),
      })
    }
  }

  private async shareMember(name: string): Promise<void> {
    while (!this.shareStopping) {
      /** Acknowledgements made and not answered yet: "partition:offset" → the delivery's. */
      const waiting = new Map<string, { kind: ShareAckKind; deliveryCount: number }>()
      let member = ''
      const ackOp = this.shareAckLogger(name, () => member, waiting)
      const onAcknowledgement = (r: AcknowledgementResult) => {
        if (r.topic !== this.opts.topic) return
        const outcome: ShareAckOutcome = r.error === null ? 'ok' : SHARE_ACK_FAILED.has(r.error) ? 'fail' : 'unknown'
        for (const o of r.offsets) ackOp(r.partition, o, outcome, r.error ?? undefined)
      }
      const consumer = new ShareConsumer({
        bootstrap: this.opts.bootstrap(),
        groupId: this.shareGroupId,
        clientId: name,
        maxWaitMs: 300,
        maxRecords: 200,
        requestTimeoutMs: CLIENT_TIMEOUTS.requestTimeoutMs,
        onAcknowledgement,
      })
      try {
        await consumer.subscribe([this.opts.topic])
        member = consumer.memberId ?? ''
        while (!this.shareStopping) {
          const records = await consumer.poll()
          for (const r of records) {
            const value = r.value?.toString() ?? ''
            this.log({
              type: 'share-delivery',
              process: name,
              member,
              time: this.now(),
              partition: r.partition,
              offset: r.offset,
              value,
              deliveryCount: r.deliveryCount,
            })
            const kind = this.shareAckKind(value)
            waiting.set(`${r.partition}:${r.offset}`, { kind, deliveryCount: r.deliveryCount })
            consumer.acknowledge(r, kind)
          }
          if (records.length < SHARE_FEW_RECORDS) await sleep(SHARE_IDLE_MS)
        }
      } catch {
        // a new ShareConsumer (a new member)
      } finally {
        await consumer.close().catch(() => {})
        for (const key of [...waiting.keys()]) {
          const [partition, offset] = key.split(':').map(Number)
          ackOp(partition!, offset!, 'unknown', 'no answer before the consumer closed')
        }
      }
      if (!this.shareStopping) await sleep(PAUSE_AFTER_ERROR_MS)
    }
  }

  /**
   * A member through the Java client: one JVM running ShareChaosMember, whose `D` (delivery) and
   * `A` (acknowledgement outcome) lines become share-delivery and share-ack ops.
   */
  private async javaShareMember(name: string): Promise<void> {
    const classpath = this.opts.javaClasspath
    if (!classpath) throw new Error('javaShareMembers needs javaClasspath')
    while (!this.shareStopping) {
      const proc = LineProcess.start(
        javaCommand(),
        [
          '-Xmx256m',
          '-cp',
          classpath,
          'io.tributary.interop.ShareChaosMember',
          this.opts.bootstrap().join(','),
          this.shareGroupId,
          this.opts.topic,
          String(this.shareSeed),
        ],
        javaEnv(),
      )
      const member = `java-${proc.pid}`
      const waiting = new Map<string, { kind: ShareAckKind; deliveryCount: number }>()
      const ackOp = this.shareAckLogger(name, () => member, waiting)
      const take = () => {
        for (const line of proc.lines.splice(0)) {
          const f = line.split(' ')
          if (f[0] === 'D' && f.length >= 5) {
            const [partition, offset, deliveryCount] = [Number(f[1]), Number(f[2]), Number(f[3])]
            const kind = f[4] as ShareAckKind
            const value = f.slice(5).join(' ')
            this.shareHanded.add(value)
            this.log({ type: 'share-delivery', process: name, member, time: this.now(), partition, offset, value, deliveryCount })
            waiting.set(`${partition}:${offset}`, { kind, deliveryCount })
          } else if (f[0] === 'A' && f.length >= 4) {
            const error = f[3] === 'ok' ? undefined : (f[4] ?? 'unknown error')
            const outcome: ShareAckOutcome = error === undefined ? 'ok' : JAVA_ACK_FAILED.has(error) ? 'fail' : 'unknown'
            ackOp(Number(f[1]), Number(f[2]), outcome, error)
          }
        }
      }
      while (!this.shareStopping && proc.alive()) {
        take()
        await sleep(100)
      }
      if (proc.alive()) {
        proc.send('stop')
        await Promise.race([proc.exited, sleep(20_000)])
        await proc.kill9()
      }
      await proc.exited
      take()
      for (const key of [...waiting.keys()]) {
        const [partition, offset] = key.split(':').map(Number)
        ackOp(partition!, offset!, 'unknown', 'no answer before the member exited')
      }
      if (!this.shareStopping) await sleep(PAUSE_AFTER_ERROR_MS)
    }
  }

  /**
   * Reads every partition from offset 0 up to its high watermark (read_uncommitted) as process
   * `final-read`; retries through errors until deadlineMs. Returns the high watermarks.
   */
  async finalRead(deadlineMs: number): Promise<Map<number, number>> {
    const name = 'final-read'
    const until = Date.now() + deadlineMs
    for (;;) {
      let client: KafkaClient | undefined
      try {
        client = await this.connect()
        const hw = await listOffsets(client, this.opts.topic, null, OffsetSpec.Latest)
        this.log({ type: 'assign', process: name, time: this.now(), partitions: [...hw.keys()] })
        const fetcher = new Fetcher(client, { maxWaitMs: 100, autoOffsetReset: 'none' })
        fetcher.assign([...hw.keys()].map((partition) => ({ topic: this.opts.topic, partition, offset: 0 })))
        while (fetcher.positions().some((p) => p.offset < hw.get(p.partition)!)) {
          if (Date.now() > until) throw new Error('final read: out of time')
          const fetched = await fetcher.poll()
          this.logPolls(
            name,
            'read_uncommitted',
            fetched.map((f) => ({
              partition: f.partition,
              records: f.records
                .filter((r) => r.offset < hw.get(f.partition)!)
                .map((r) => ({ offset: r.offset, value: r.value?.toString() ?? '' })),
            })),
          )
        }
        return hw
      } catch (err) {
        if (Date.now() > until) throw err
      } finally {
        await client?.close().catch(() => {})
      }
      await sleep(500)
    }
  }
}
