// EtcdMetadataStore: the multi-broker MetadataStore (docs/architecture.md §1.5). The cluster metadata lives in
// etcd, one key per fact under `etcd.prefix` (default /tributary), JSON values:
//
//   <prefix>/cluster-id              {"clusterId":"<uuid>"}        created once (create-if-absent)
//   <prefix>/topics/<name>           {"name","topicId","partitions","replicationFactor","configs","createdMs","assignment"}
//   <prefix>/partitions/<name>/<i>   {"replicas","isr","leader","leaderEpoch","partitionEpoch","addingReplicas","removingReplicas"}
//                                    written at a partition's first change; until then its state is
//                                    the topic's assignment: leader = first replica, ISR = all, epoch 0
//                                    (so creating a topic of any size is one small transaction); a
//                                    topic created without an assignment has leaderless partitions
//   <prefix>/topic-ids/<topicId>     {"name"}                      keeps topic ids unique across brokers
//   <prefix>/broker-configs/default  {"configs":{…}}               dynamic cluster-wide default (resource "")
//   <prefix>/broker-configs/<id>     {"configs":{…}}               dynamic configs of broker <id>
//   <prefix>/group-configs/<group>   {"configs":{…}}               configs of a group (the id URI-encoded)
//   <prefix>/producer-ids            {"nextProducerId":N}          the producer-id allocator
//
// (Broker registrations and the controller key, under the same prefix, belong to EtcdMembership.)
//
// Reads are synchronous, from an image kept current by an EtcdMirror (one range read, then a watch,
// changes applied in revision order, a full reload after a reconnect or a compaction). Records are
// frozen, and an unchanged topic keeps its record object, so callers may cache per record.
//
// Writes: every change is one etcd transaction conditioned on what this broker's image holds — the
// mod revision of each key it changes (0 for a key it creates) — so a broker with a stale image
// cannot overwrite a newer decision (compare-and-swap). A write resolves once the transaction has
// committed (etcd made it durable on a quorum) and the watch has brought it back into the image,
// so a caller reads its own write at once. A failed transaction changes nothing, in etcd or in the
// image; the loser of a race gets the precise error for the state that won:
//   TOPIC_ALREADY_EXISTS        the name (or the given topic id) was taken meanwhile;
//   UNKNOWN_TOPIC_OR_PARTITION  the topic was deleted meanwhile;
//   INVALID_UPDATE_VERSION      the key changed since it was read (Kafka's answer to a write
//                               conditioned on a stale version, as KRaft's AlterPartition gives on
//                               a stale partition epoch): re-read and retry.
// Partition state changes (alterPartition) are conditioned on the partition key's revision and on
// the topic's create revision, so they never land on a deleted or re-created topic; they do not
// queue behind other writes (different partitions never conflict).
// Producer-id blocks are the exception: a conflict there is retried on the fresh value, since the
// loser only needs the next free block; the CAS is what keeps blocks from ever overlapping.
// Writes of one store instance run one at a time, so they never conflict with each other.
import type { Etcd3, IRequestOp, ITxnResponse } from 'etcd3'
import { KafkaError } from '../protocol/errors.js'
import type { Clock } from '../util/clock.js'
import type { Logger } from '../util/logger.js'
import {
  idInUse,
  parseBrokerConfigs,
  parseClusterId,
  parseJson,
  parsePartitionState,
  parseProducerIds,
  parseTopic,
  sameTopic,
  staleVersion,
  topicExists,
  unknownTopic,
} from './etcd-records.js'
import { EtcdMirror, type MirrorChange, type MirrorEntry, MirrorLagError } from './etcd-mirror.js'
import {
  checkCounts,
  checkGroupConfigs,
  checkSecurityEntries,
  SECURITY_ENTRY_KINDS,
  type SecurityEntryKind,
  freezeTopic,
  type MetadataStore,
  type NewTopic,
  type PartitionChange,
  type PartitionState,
  type StoreChange,
  type TopicRecord,
} from '../ports/metadata-store.js'
import { checkAssignment, checkTransition, fencedEpoch, initialState, partitionStateProblem } from './partition-states.js'
import { topicNameError } from './topic-names.js'
import { isValidUuid, METADATA_TOPIC_ID, randomUuid, ZERO_UUID } from './uuid.js'

export const DEFAULT_ETCD_PREFIX = '/tributary'

const CLUSTER_ID = 'cluster-id'
const TOPICS = 'topics/'
const TOPIC_IDS = 'topic-ids/'
const PARTITIONS = 'partitions/'
const BROKER_CONFIGS = 'broker-configs/'
const GROUP_CONFIGS = 'group-configs/'
/** security/<kind>/<encoded key> → {"value": text} (ACL bindings, SCRAM credentials, quotas). */
const SECURITY = 'security/'
/** A security write whose keys moved under it is retried (values are set, not merged). */
const MAX_SECURITY_ATTEMPTS = 10
const PRODUCER_IDS = 'producer-ids'
const DEFAULT_RESOURCE_KEY = 'default'

const WRITE_VISIBLE_TIMEOUT_MS = 30_000
const MAX_ALLOCATION_ATTEMPTS = 100

const NO_CONFIGS: Readonly<Record<string, string>> = Object.freeze({})

/** The etcd metadata cannot be used: unreachable etcd, a cluster id mismatch, a corrupt key. */
export class EtcdMetadataError extends Error {
  constructor(message: string) {
    super(message)
    this.name = 'EtcdMetadataError'
  }
}

export interface EtcdMetadataStoreOptions {
  client: Etcd3
  /** Key prefix shared by the brokers of one cluster. Default /tributary. */
  prefix?: string
  clock: Clock
  logger: Logger
  /** The configured cluster.id, if any: a new cluster is created with it, an existing one must match. */
  clusterId?: string | null
  /** Random bytes source (tests). */
  random?: (n: number) => Buffer
  /** Longest wait for a committed write to come back through the watch. Default 30 s. */
  writeVisibleTimeoutMs?: number
}

type Compare = [key: string, target: 'Create' | 'Mod', revision: number]

export class EtcdMetadataStore implements MetadataStore {
  private cid = ''
  private readonly topics = new Map<string, TopicRecord>()
  private readonly byId = new Map<string, TopicRecord>()
  private readonly brokerConfigs = new Map<string, Readonly<Record<string, string>>>()
  private readonly groupConfigs = new Map<string, Readonly<Record<string, string>>>()
  private readonly security = new Map<SecurityEntryKind, Map<string, string>>()
  /** Partitions whose state has been written ("topic:index"); the others follow their topic's assignment. */
  private readonly partitionStates = new Map<string, PartitionState>()
  /** Image changes not yet told to listeners (sent once a whole watch response is applied). */
  private pending: StoreChange[] = []
  private nextProducerId = 0
  private readonly listeners: Array<(change: StoreChange) => void> = []
  private queue: Promise<unknown> = Promise.resolve()
  private closed = false
  private readonly prefix: string
  private readonly visibleTimeoutMs: number

  private constructor(
    private readonly client: Etcd3,
    private readonly mirror: EtcdMirror,
    private readonly clock: Clock,
    private readonly logger: Logger,
    private readonly random: ((n: number) => Buffer) | undefined,
    visibleTimeoutMs: number,
  ) {
    this.prefix = mirror.prefix
    this.visibleTimeoutMs = visibleTimeoutMs
  }

  /**
   * Loads the cluster metadata from etcd and keeps watching it; creates the cluster id if this is
   * the cluster's first broker. Rejects with EtcdMetadataError when etcd holds another cluster id
   * than the configured one or a key that is not valid metadata.
   */
  static async open(opts: EtcdMetadataStoreOptions): Promise<EtcdMetadataStore> {
    const prefix = normalizePrefix(opts.prefix ?? DEFAULT_ETCD_PREFIX)
    const mirror = await EtcdMirror.open(opts.client, prefix, opts.clock, opts.logger)
    const store = new EtcdMetadataStore(
      opts.client,
      mirror,
      opts.clock,
      opts.logger,
      opts.random,
      opts.writeVisibleTimeoutMs ?? WRITE_VISIBLE_TIMEOUT_MS,
    )
    try {
      for (const e of mirror.under('')) store.applyEntry(e.key, e, true)
      store.pending = [] // nobody listens yet: the initial image is not a change
      mirror.onChange((changes) => store.applyChanges(changes))
      await store.ensureClusterId(opts.clusterId ?? null)
      return store
    } catch (err) {
      await mirror.close()
      throw err
    }
  }

  clusterId(): string {
    return this.cid
  }

  listTopics(): TopicRecord[] {
    return [...this.topics.values()]
  }

  getTopic(name: string): TopicRecord | undefined {
    return this.topics.get(name)
  }

  getTopicById(id: string): TopicRecord | undefined {
    return this.byId.get(id)
  }

  getBrokerConfigs(resourceName: string): Readonly<Record<string, string>> {
    return this.brokerConfigs.get(resourceName) ?? NO_CONFIGS
  }

  partitionState(topic: string, partition: number): PartitionState | undefined {
    const t = this.topics.get(topic)
    if (!t || !Number.isInteger(partition) || partition < 0 || partition >= t.partitions) return undefined
    return this.partitionStates.get(`${topic}:${partition}`) ?? initialState(t, partition)
  }

  async alterPartition(change: PartitionChange): Promise<PartitionState> {
    if (this.closed) throw new Error('metadata store is closed')
    const { topic, partition, expected, next } = change
    const current = this.partitionState(topic, partition)
    if (!current) throw unknownTopic(topic)
    checkTransition(current, expected)
    const problem = partitionStateProblem(next)
    if (problem) throw new KafkaError('INVALID_REQUEST', `${topic}-${partition}: ${problem}`)
    const state: PartitionState = { ...next, partitionEpoch: current.partitionEpoch + 1 }
    const topicKey = TOPICS + topic
    const key = `${PARTITIONS}${topic}/${partition}`
    const res = await this.commit(
      [
        [topicKey, 'Create', this.mirror.get(topicKey)?.createRevision ?? 0],
        [key, 'Mod', this.modRevision(key)],
      ],
      [this.put(key, state)],
      [topicKey, key],
    )
    if (!res.ok) {
      const now = this.partitionState(topic, partition)
      if (!res.current.get(topicKey) || !now) throw unknownTopic(topic)
      const stored = res.current.get(key)
      const parsed = stored ? parsePartitionState(stored) : undefined
      if (parsed && parsed.leaderEpoch !== expected.leaderEpoch)
        throw fencedEpoch(topic, partition, expected.leaderEpoch, parsed.leaderEpoch)
      throw staleVersion(`partition ${topic}-${partition}`, this.modRevision(key), res.revisions.get(key) ?? 0)
    }
    return this.partitionState(topic, partition) ?? state
  }

  /** The etcd revision the image reflects. */
  get revision(): number {
    return this.mirror.revision
  }

  /** Called after the image changed, by this broker's writes or another broker's (once a whole watch response is in). */
  onChange(listener: (change: StoreChange) => void): void {
    this.listeners.push(listener)
  }

  createTopic(t: NewTopic): Promise<TopicRecord> {
    return this.serialized(async () => {
      const nameErr = topicNameError(t.name)
      if (nameErr) throw new KafkaError('INVALID_TOPIC_EXCEPTION', nameErr)
      if (this.topics.has(t.name)) throw topicExists(t.name)
      checkCounts(t.partitions, t.replicationFactor)
      let topicId = t.topicId
      if (topicId !== undefined) {
        if (!isValidUuid(topicId) || topicId === ZERO_UUID || topicId === METADATA_TOPIC_ID) {
          throw new KafkaError('INVALID_REQUEST', `Invalid topic id ${topicId}`)
        }
        if (this.byId.has(topicId)) throw idInUse(topicId)
      } else {
        do {
          topicId = randomUuid(this.random)
        } while (this.byId.has(topicId))
      }
      if (t.assignment) checkAssignment(t.assignment, 0, t.partitions, t.replicationFactor)
      const rec: TopicRecord = {
        name: t.name,
        topicId,
        partitions: t.partitions,
        replicationFactor: t.replicationFactor,
        configs: { ...t.configs },
        createdMs: this.clock.now(),
        ...(t.assignment ? { assignment: t.assignment.map((r) => [...r]) } : {}),
      }
      const topicKey = TOPICS + t.name
      const idKey = TOPIC_IDS + topicId
      const res = await this.commit(
        [
          [topicKey, 'Create', 0],
          [idKey, 'Create', 0],
        ],
        [this.put(topicKey, rec), this.put(idKey, { name: t.name })],
        [topicKey, idKey],
      )
      if (!res.ok) {
        const now = res.current.get(topicKey)
        // A retried commit that had already gone through finds its own record.
        if (now && parseJson(now)?.topicId === topicId) await this.seen(Number(res.revisions.get(topicKey)))
        else if (now) throw topicExists(t.name)
        else throw idInUse(topicId)
      }
      return this.topics.get(t.name) ?? freezeTopic(rec)
    })
  }

  deleteTopic(name: string): Promise<void> {
    return this.serialized(async () => {
      const rec = this.topics.get(name)
      if (!rec) throw unknownTopic(name)
      const topicKey = TOPICS + name
      const res = await this.commit(
        [[topicKey, 'Mod', this.modRevision(topicKey)]],
        [this.del(topicKey), this.del(TOPIC_IDS + rec.topicId), this.delPrefix(`${PARTITIONS}${name}/`)],
        [topicKey],
      )
      if (!res.ok) {
        if (!res.current.get(topicKey)) throw unknownTopic(name)
        throw staleVersion(`topic '${name}'`, this.modRevision(topicKey), res.revisions.get(topicKey)!)
      }
    })
  }

  updateTopic(
    name: string,
    patch: Partial<Pick<TopicRecord, 'partitions' | 'configs'>> & { newAssignment?: number[][] },
  ): Promise<TopicRecord> {
    return this.serialized(async () => {
      const rec = this.topics.get(name)
      if (!rec) throw unknownTopic(name)
      const partitions = patch.partitions ?? rec.partitions
      checkCounts(partitions, rec.replicationFactor)
      if (partitions < rec.partitions) {
        throw new KafkaError(
          'INVALID_PARTITIONS',
          `Topic currently has ${rec.partitions} partitions, which is higher than the requested ${partitions}.`,
        )
      }
      const added = partitions - rec.partitions
      if (added > 0 && rec.assignment) checkAssignment(patch.newAssignment, rec.partitions, added, rec.replicationFactor)
      const next: TopicRecord = { ...rec, partitions, configs: { ...(patch.configs ?? rec.configs) } }
      if (rec.assignment) next.assignment = [...rec.assignment, ...(added > 0 ? patch.newAssignment! : [])].map((r) => [...r])
      const topicKey = TOPICS + name
      const read = this.modRevision(topicKey)
      const op = this.put(topicKey, next)
      const res = await this.commit([[topicKey, 'Mod', read]], [op], [topicKey])
      if (!res.ok) {
        const now = res.current.get(topicKey)
        if (!now) throw unknownTopic(name)
        if (!now.equals(op.request_put!.value as Buffer)) throw staleVersion(`topic '${name}'`, read, res.revisions.get(topicKey)!)
        await this.seen(res.revisions.get(topicKey)!)
      }
      return this.topics.get(name) ?? freezeTopic(next)
    })
  }

  setBrokerConfigs(resourceName: string, configs: Readonly<Record<string, string>>): Promise<void> {
    return this.serialized(async () => {
      if (resourceName !== '' && !/^\d+$/.test(resourceName)) {
        throw new KafkaError('INVALID_REQUEST', `Broker config resource must be "" or a node id, not ${JSON.stringify(resourceName)}`)
      }
      if (Object.values(configs).some((v) => typeof v !== 'string')) {
        throw new KafkaError('INVALID_REQUEST', 'Broker config values must be strings')
      }
      const key = BROKER_CONFIGS + (resourceName === '' ? DEFAULT_RESOURCE_KEY : resourceName)
      const read = this.modRevision(key)
      const empty = Object.keys(configs).length === 0
      if (empty && read === 0) return
      const op = empty ? this.del(key) : this.put(key, { configs: { ...configs } })
      const res = await this.commit([[key, 'Mod', read]], [op], [key])
      if (!res.ok)
        throw staleVersion(`the dynamic configs of broker resource ${JSON.stringify(resourceName)}`, read, res.revisions.get(key) ?? 0)
    })
  }

  getGroupConfigs(groupId: string): Readonly<Record<string, string>> {
    return this.groupConfigs.get(groupId) ?? NO_CONFIGS
  }

  setGroupConfigs(groupId: string, configs: Readonly<Record<string, string>>): Promise<void> {
    return this.serialized(async () => {
      checkGroupConfigs(groupId, configs)
      const key = GROUP_CONFIGS + encodeURIComponent(groupId)
      const read = this.modRevision(key)
      const empty = Object.keys(configs).length === 0
      if (empty && read === 0) return
      const op = empty ? this.del(key) : this.put(key, { configs: { ...configs } })
      const res = await this.commit([[key, 'Mod', read]], [op], [key])
      if (!res.ok) throw staleVersion(`the configs of group ${JSON.stringify(groupId)}`, read, res.revisions.get(key) ?? 0)
    })
  }

  getSecurityEntries(kind: SecurityEntryKind): ReadonlyMap<string, string> {
    return this.security.get(kind) ?? NO_ENTRIES
  }

  setSecurityEntries(kind: SecurityEntryKind, entries: Readonly<Record<string, string | null>>): Promise<void> {
    return this.serialized(async () => {
      checkSecurityEntries(kind, entries)
      const keys = Object.keys(entries).map((k) => `${SECURITY}${kind}/${encodeURIComponent(k)}`)
      if (keys.length === 0) return
      const ops = Object.values(entries).map((value, i) => (value === null ? this.del(keys[i]!) : this.put(keys[i]!, { value })))
      // Compare-and-swap on every key's revision, so a write is applied whole; another broker's
      // write to the same keys in between makes it retry, last writer winning per key.
      let revisions = keys.map((k) => this.modRevision(k))
      for (let attempt = 0; attempt < MAX_SECURITY_ATTEMPTS; attempt++) {
        const res = await this.commit(
          keys.map((k, i): Compare => [k, 'Mod', revisions[i]!]),
          ops,
          keys,
        )
        if (res.ok) return
        revisions = keys.map((k) => res.revisions.get(k) ?? 0)
      }
      throw new KafkaError('REQUEST_TIMED_OUT', `security ${kind} entries kept changing under the write`)
    })
  }

  nextProducerIdBlock(size: number): Promise<{ start: number; size: number }> {
    return this.serialized(async () => {
      if (!Number.isSafeInteger(size) || size < 1) {
        throw new KafkaError('INVALID_REQUEST', `producer id block size must be a positive integer, not ${size}`)
      }
      let start = this.nextProducerId
      let read = this.modRevision(PRODUCER_IDS)
      for (let attempt = 0; attempt < MAX_ALLOCATION_ATTEMPTS; attempt++) {
        if (start + size > Number.MAX_SAFE_INTEGER) throw new KafkaError('INVALID_REQUEST', 'producer ids exhausted')
        const res = await this.commit(
          [[PRODUCER_IDS, 'Mod', read]],
          [this.put(PRODUCER_IDS, { nextProducerId: start + size })],
          [PRODUCER_IDS],
        )
        if (res.ok) return { start, size }
        // Another broker took a block first: try again after the block it took.
        const now = res.current.get(PRODUCER_IDS)
        const parsed = now ? parseProducerIds(now) : 0
        if (parsed === undefined) throw new EtcdMetadataError(`${this.prefix}${PRODUCER_IDS} does not hold a valid producer id allocator`)
        start = parsed
        read = res.revisions.get(PRODUCER_IDS) ?? 0
      }
      throw new KafkaError('REQUEST_TIMED_OUT', `could not reserve a producer id block after ${MAX_ALLOCATION_ATTEMPTS} attempts`)
    })
  }

  async close(): Promise<void> {
    this.closed = true
    await this.queue.catch(() => {})
    await this.mirror.close()
  }

  // ---------------------------------------------------------------------------------------------
  // Writing

  private serialized<T>(fn: () => Promise<T>): Promise<T> {
    if (this.closed) return Promise.reject(new Error('metadata store is closed'))
    const p = this.queue.then(fn, fn)
    this.queue = p.catch(() => {})
    return p
  }

  private modRevision(key: string): number {
    return this.mirror.get(key)?.modRevision ?? 0
  }

  private put(key: string, value: unknown): IRequestOp {
    return { request_put: { key: Buffer.from(this.prefix + key), value: Buffer.from(JSON.stringify(value)) } }
  }

  private del(key: string): IRequestOp {
    return { request_delete_range: { key: Buffer.from(this.prefix + key) } }
  }

  /** Deletes every key under a sub-prefix (range end = the prefix with its last byte incremented). */
  private delPrefix(sub: string): IRequestOp {
    const key = Buffer.from(this.prefix + sub)
    const end = Buffer.from(key)
    end[end.length - 1]!++
    return { request_delete_range: { key, range_end: end } }
  }

  /**
   * One transaction: if every compare holds, the ops; otherwise a read of `readBack`. On success,
   * waits until the image reflects the commit.
   */
  private async commit(
    compares: Compare[],
    ops: IRequestOp[],
    readBack: string[],
  ): Promise<{ ok: true } | { ok: false; current: Map<string, Buffer | undefined>; revisions: Map<string, number> }> {
    const [first, ...rest] = compares
    let txn = this.client.if(this.prefix + first![0], first![1], '==', first![2])
    for (const [key, target, rev] of rest) txn = txn.and(this.prefix + key, target, '==', rev)
    const res: ITxnResponse = await txn
      .then(...ops)
      .else(...readBack.map((key) => ({ request_range: { key: Buffer.from(this.prefix + key) } })))
      .commit()
    if (res.succeeded) {
      await this.seen(Number(res.header.revision))
      return { ok: true }
    }
    const current = new Map<string, Buffer | undefined>()
    const revisions = new Map<string, number>()
    readBack.forEach((key, i) => {
      const kv = res.responses[i]?.response_range?.kvs[0]
      current.set(key, kv?.value)
      revisions.set(key, kv ? Number(kv.mod_revision) : 0)
    })
    return { ok: false, current, revisions }
  }

  /** Waits for the watch to bring `revision` into the image (read-your-writes). */
  private async seen(revision: number): Promise<void> {
    try {
      await this.mirror.waitFor(revision, this.visibleTimeoutMs)
    } catch (err) {
      // The change is committed; only this broker's view lags. Reads catch up when the watch does.
      if (!(err instanceof MirrorLagError)) throw err
      this.logger.warn('a committed metadata change is not visible yet', { revision, err })
    }
  }

  private async ensureClusterId(configured: string | null): Promise<void> {
    if (!this.cid) {
      const proposed = configured ?? randomUuid(this.random)
      const res = await this.commit([[CLUSTER_ID, 'Create', 0]], [this.put(CLUSTER_ID, { clusterId: proposed })], [CLUSTER_ID])
      if (!res.ok) {
        const winner = res.current.get(CLUSTER_ID)
        const id = winner ? parseClusterId(winner) : undefined
        if (id === undefined) throw new EtcdMetadataError(`${this.prefix}${CLUSTER_ID} does not hold a valid cluster id`)
        await this.seen(res.revisions.get(CLUSTER_ID)!)
        this.cid ||= id
      } else {
        this.cid ||= proposed
        this.logger.info('created the cluster id in etcd', { clusterId: this.cid, prefix: this.prefix })
      }
    }
    if (configured && configured !== this.cid) {
      throw new EtcdMetadataError(
        `etcd (prefix ${this.prefix}) holds cluster id ${this.cid}, but cluster.id is configured as ${configured}; ` +
          'fix cluster.id, or point etcd.prefix at the right cluster',
      )
    }
  }

  // ---------------------------------------------------------------------------------------------
  // The image

  private applyChanges(changes: readonly MirrorChange[]): void {
    for (const c of changes) this.applyEntry(c.key, c.entry, false)
    this.flushChanges()
  }

  /** Tells listeners what changed, once a whole batch is in the image (a topic and its partitions together). */
  private flushChanges(): void {
    const changes = this.pending
    this.pending = []
    for (const change of changes) {
      for (const l of this.listeners) {
        try {
          l(change)
        } catch (err) {
          this.logger.error('a metadata change listener failed', { err })
        }
      }
    }
  }

  /** Updates the image from one key. At open (`strict`) an invalid value stops the start. */
  private applyEntry(key: string, entry: MirrorEntry | undefined, strict: boolean): void {
    const problem = this.apply(key, entry)
    if (problem === undefined) return
    if (strict) throw new EtcdMetadataError(`${this.prefix}${key} ${problem}`)
    this.logger.error('ignoring an invalid metadata key in etcd', { key: this.prefix + key, problem })
  }

  /** Applies one key to the image; returns what is wrong with it instead when it is not valid. */
  private apply(key: string, entry: MirrorEntry | undefined): string | undefined {
    if (key === CLUSTER_ID) {
      const id = entry ? parseClusterId(entry.value) : undefined
      if (id === undefined) return entry ? 'does not hold a valid cluster id' : 'was deleted'
      if (this.cid && this.cid !== id) return `changed the cluster id from ${this.cid} to ${id}`
      this.cid = id
    } else if (key.startsWith(TOPICS)) {
      const name = key.slice(TOPICS.length)
      const old = this.topics.get(name)
      let rec: TopicRecord | undefined
      if (entry) {
        rec = parseTopic(entry.value, name)
        if (!rec) return 'does not hold a valid topic record'
        if (old && old.topicId === rec.topicId && sameTopic(old, rec)) return undefined // unchanged: keep the object
      }
      if (old && this.byId.get(old.topicId) === old) this.byId.delete(old.topicId)
      if (rec) {
        this.topics.set(name, rec)
        this.byId.set(rec.topicId, rec)
      } else {
        this.topics.delete(name)
      }
      this.emit({ kind: 'topic', name })
    } else if (key.startsWith(PARTITIONS)) {
      const rest = key.slice(PARTITIONS.length)
      const slash = rest.lastIndexOf('/')
      const topic = rest.slice(0, slash)
      const partition = Number(rest.slice(slash + 1))
      if (slash <= 0 || !Number.isSafeInteger(partition) || partition < 0) return 'is not a partition key'
      if (entry) {
        const state = parsePartitionState(entry.value)
        if (!state) return 'does not hold a valid partition state'
        this.partitionStates.set(`${topic}:${partition}`, state)
      } else {
        this.partitionStates.delete(`${topic}:${partition}`)
      }
      this.emit({ kind: 'partition', topic, partition })
    } else if (key.startsWith(BROKER_CONFIGS)) {
      const suffix = key.slice(BROKER_CONFIGS.length)
      const resourceName = suffix === DEFAULT_RESOURCE_KEY ? '' : suffix
      if (resourceName !== '' && !/^\d+$/.test(resourceName)) return 'is not a broker config resource'
      if (entry) {
        const configs = parseBrokerConfigs(entry.value)
        if (!configs) return 'does not hold a valid broker config set'
        this.brokerConfigs.set(resourceName, configs)
      } else {
        this.brokerConfigs.delete(resourceName)
      }
      this.emit({ kind: 'brokerConfigs', resourceName })
    } else if (key.startsWith(GROUP_CONFIGS)) {
      let groupId: string
      try {
        groupId = decodeURIComponent(key.slice(GROUP_CONFIGS.length))
      } catch {
        return 'is not a group config key'
      }
      if (groupId === '') return 'is not a group config key'
      if (entry) {
        const configs = parseBrokerConfigs(entry.value)
        if (!configs) return 'does not hold a valid group config set'
        this.groupConfigs.set(groupId, configs)
      } else {
        this.groupConfigs.delete(groupId)
      }
      this.emit({ kind: 'groupConfigs', groupId })
    } else if (key.startsWith(SECURITY)) {
      const rest = key.slice(SECURITY.length)
      const slash = rest.indexOf('/')
      const kind = rest.slice(0, slash) as SecurityEntryKind
      let entryKey: string
      try {
        entryKey = decodeURIComponent(rest.slice(slash + 1))
      } catch {
        return 'is not a security entry key'
      }
      if (slash <= 0 || entryKey === '' || !(SECURITY_ENTRY_KINDS as readonly string[]).includes(kind)) return 'is not a security entry key'
      const map = this.security.get(kind) ?? new Map<string, string>()
      if (entry) {
        const value = parseSecurityValue(entry.value)
        if (value === undefined) return 'does not hold a valid security entry'
        map.set(entryKey, value)
      } else {
        map.delete(entryKey)
      }
      if (map.size === 0) this.security.delete(kind)
      else this.security.set(kind, map)
      this.emit({ kind: 'security', entry: kind, key: entryKey })
    } else if (key === PRODUCER_IDS) {
      const next = entry ? parseProducerIds(entry.value) : 0
      if (next === undefined) return 'does not hold a valid producer id allocator'
      this.nextProducerId = next
    }
    // Other keys (topic-ids/, the membership's brokers/ and controller) are not part of the image.
    return undefined
  }

  private emit(change: StoreChange): void {
    this.pending.push(change)
  }
}

const NO_ENTRIES: ReadonlyMap<string, string> = new Map()

function parseSecurityValue(raw: Buffer): string | undefined {
  try {
    const v = JSON.parse(raw.toString('utf8')) as { value?: unknown }
    return typeof v?.value === 'string' ? v.value : undefined
  } catch {
    return undefined
  }
}

/** "/tributary", "/tributary/" and "tributary" all name the prefix "/tributary/". */
export function normalizePrefix(prefix: string): string {
  let p = prefix.trim()
  if (!p.startsWith('/')) p = `/${p}`
  return p.endsWith('/') ? p : `${p}/`
}
