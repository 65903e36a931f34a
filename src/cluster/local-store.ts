// LocalMetadataStore: the MetadataStore of a broker that is a cluster of one (ports/metadata-store.ts),
// kept in memory and journaled to the data dir as a snapshot rewritten on every change. It keeps
// the same records as the etcd store — topics with their replica assignment, partition states
// changed by compare-and-swap (partition-states.ts), dynamic broker configs — and tells the same
// change events, so the broker runs one path whatever the store. Metadata changes are rare (topic
// create/delete/alter, a leader epoch per partition per start-up at most, one producer-id block per
// thousand producers), so a whole-file rewrite is simpler than a journal and costs nothing that
// matters.
//
// Files in <dataDir>:
//   meta.properties            Kafka's file (Java properties): version=1, cluster.id=<uuid>,
//                              node.id=<id>. Written once, when the directory is formatted; the
//                              cluster id survives restarts and a node.id or cluster.id mismatch
//                              on open is an error (as in Kafka: the dir belongs to another broker).
//   tributary-metadata.json    {"version":1,"clusterId","nextProducerId","topics":[…],
//                              "brokerConfigs":{"": {…}, "<node id>": {…}},
//                              "partitionStates":{"<topic>:<partition>": {…}},
//                              "groupConfigs":{"<group id>": {…}},
//                              "security":{"acl"|"scram"|"quota": {"<key>": "<text>"}}} —
//                              brokerConfigs (the dynamic broker configs, KIP-226), partitionStates
//                              (those written since creation), groupConfigs and security (ACLs,
//                              SCRAM credentials, quotas) are optional and left out while empty; a topic's
//                              `assignment` too. Files written before they existed read as having
//                              none: every partition then has this broker as its only replica.
//   *.tmp                      a write in progress.
//
// Durability (docs/architecture.md §3): each write goes temp file → fsync → rename over the old file → fsync of
// the directory; a change is acknowledged (the promise resolves) only after that, and the in-memory
// image changes only once the write succeeded, so a failed write (ENOSPC…) leaves both unchanged.
// Crash at any point leaves either the old or the new file; a leftover .tmp is from an interrupted
// write that was never acknowledged and is deleted on open. A file that does not parse or does
// not hold valid metadata is refused with an error naming it — never silently reset.
// Writes are serialized through one queue; reads are synchronous from the image.
// Records handed out are frozen: callers cannot change the image behind the store's back.
import { KafkaError } from '../protocol/errors.js'
import type { Fs } from '../storage/fs.js'
import type { Clock } from '../util/clock.js'
import { formatProperties, parseProperties } from '../util/properties.js'
import {
  checkCounts,
  checkGroupConfigs,
  checkSecurityEntries,
  freezeTopic,
  type MetadataStore,
  type NewTopic,
  type PartitionChange,
  type PartitionState,
  SECURITY_ENTRY_KINDS,
  type SecurityEntryKind,
  type StoreChange,
  type TopicRecord,
} from '../ports/metadata-store.js'
import { checkAssignment, checkTransition, fencedEpoch, initialState, partitionStateProblem } from './partition-states.js'
import { topicNameError } from './topic-names.js'
import { isValidUuid, METADATA_TOPIC_ID, randomUuid, ZERO_UUID } from './uuid.js'

export const META_PROPERTIES = 'meta.properties'
export const METADATA_FILE = 'tributary-metadata.json'
const TMP = '.tmp'
const FORMAT_VERSION = 1

/** A metadata file on disk is unreadable, corrupt, or belongs to another broker/cluster. */
export class MetadataFileError extends Error {
  constructor(
    readonly path: string,
    detail: string,
  ) {
    super(`${path}: ${detail}`)
    this.name = 'MetadataFileError'
  }
}

export interface LocalMetadataStoreOptions {
  fs: Fs
  dataDir: string
  clock: Clock
  /** This broker's node.id; checked against (or written to) meta.properties. Default 0. */
  nodeId?: number
  /** The configured cluster.id, if any: a new dir is formatted with it, an existing one must match. */
  clusterId?: string | null
  /** Random bytes source (tests). */
  random?: (n: number) => Buffer
}

interface Image {
  clusterId: string
  nextProducerId: number
  topics: Map<string, TopicRecord>
  byId: Map<string, TopicRecord>
  /** Resource name ("" = cluster default, else a node id) → frozen dynamic config set. */
  brokerConfigs: Map<string, Readonly<Record<string, string>>>
  /** "topic:partition" → the state last written; partitions absent follow their topic's assignment. */
  partitionStates: Map<string, PartitionState>
  /** Group id → frozen group config set. */
  groupConfigs: Map<string, Readonly<Record<string, string>>>
  /** Security entries by kind (absent kind = none); each map is replaced, never changed in place. */
  security: Map<SecurityEntryKind, ReadonlyMap<string, string>>
}

interface FileV1 {
  version: 1
  clusterId: string
  nextProducerId: number
  topics: TopicRecord[]
  brokerConfigs?: Record<string, Record<string, string>>
  partitionStates?: Record<string, PartitionState>
  groupConfigs?: Record<string, Record<string, string>>
  security?: Partial<Record<SecurityEntryKind, Record<string, string>>>
}

const stateKey = (topic: string, partition: number) => `${topic}:${partition}`

const NO_CONFIGS: Readonly<Record<string, string>> = Object.freeze({})
const NO_ENTRIES: ReadonlyMap<string, string> = new Map()

const join = (dir: string, name: string) => (dir.endsWith('/') ? dir + name : `${dir}/${name}`)

export class LocalMetadataStore implements MetadataStore {
  private queue: Promise<unknown> = Promise.resolve()
  private closed = false
  private readonly listeners: Array<(change: StoreChange) => void> = []

  private constructor(
    private readonly fs: Fs,
    private readonly dataDir: string,
    private readonly clock: Clock,
    private readonly random: ((n: number) => Buffer) | undefined,
    readonly nodeId: number,
    private image: Image,
  ) {}

  static async open(opts: LocalMetadataStoreOptions): Promise<LocalMetadataStore> {
    const { fs, dataDir } = opts
    const nodeId = opts.nodeId ?? 0
    await fs.mkdir(dataDir)
    for (const name of [META_PROPERTIES, METADATA_FILE]) await removeIfExists(fs, join(dataDir, name + TMP))

    const metaPath = join(dataDir, META_PROPERTIES)
    const dataPath = join(dataDir, METADATA_FILE)
    const meta = await readMetaProperties(fs, metaPath)
    const data = await readMetadataFile(fs, dataPath, nodeId)

    if (meta && meta.nodeId !== nodeId) {
      throw new MetadataFileError(
        metaPath,
        `stored node.id ${meta.nodeId} does not match the configured node.id ${nodeId}; this data dir belongs to another broker`,
      )
    }
    const stored = meta?.clusterId ?? data?.clusterId
    if (meta && data && meta.clusterId !== data.clusterId) {
      throw new MetadataFileError(dataPath, `cluster id ${data.clusterId} differs from ${meta.clusterId} in ${META_PROPERTIES}`)
    }
    if (stored !== undefined && opts.clusterId && opts.clusterId !== stored) {
      throw new MetadataFileError(
        meta ? metaPath : dataPath,
        `the stored cluster id ${stored} does not match the configured cluster.id ${opts.clusterId}`,
      )
    }
    const clusterId = stored ?? opts.clusterId ?? randomUuid(opts.random)
    const image: Image = data
      ? data
      : {
          clusterId,
          nextProducerId: 0,
          topics: new Map(),
          byId: new Map(),
          brokerConfigs: new Map(),
          partitionStates: new Map(),
          groupConfigs: new Map(),
          security: new Map(),
        }
    const store = new LocalMetadataStore(fs, dataDir, opts.clock, opts.random, nodeId, image)
    // meta.properties first: a dir with metadata but no meta.properties gets it back from the data.
    if (!meta) await store.writeFile(META_PROPERTIES, metaPropertiesText(clusterId, nodeId))
    if (!data) await store.writeFile(METADATA_FILE, serialize(image))
    return store
  }

  clusterId(): string {
    return this.image.clusterId
  }

  listTopics(): TopicRecord[] {
    return [...this.image.topics.values()]
  }

  getTopic(name: string): TopicRecord | undefined {
    return this.image.topics.get(name)
  }

  getTopicById(id: string): TopicRecord | undefined {
    return this.image.byId.get(id)
  }

  partitionState(topic: string, partition: number): PartitionState | undefined {
    const t = this.image.topics.get(topic)
    if (!t || !Number.isInteger(partition) || partition < 0 || partition >= t.partitions) return undefined
    return this.image.partitionStates.get(stateKey(topic, partition)) ?? initialState(t, partition)
  }

  alterPartition(change: PartitionChange): Promise<PartitionState> {
    const { topic, partition, expected, next } = change
    return this.mutate((img) => {
      const t = img.topics.get(topic)
      if (!t || !Number.isInteger(partition) || partition < 0 || partition >= t.partitions) {
        throw new KafkaError('UNKNOWN_TOPIC_OR_PARTITION', `Topic '${topic}' does not exist`)
      }
      const current = img.partitionStates.get(stateKey(topic, partition)) ?? initialState(t, partition)
      try {
        checkTransition(current, expected)
      } catch (err) {
        if (err instanceof KafkaError && err.errorName === 'FENCED_LEADER_EPOCH') {
          throw fencedEpoch(topic, partition, expected.leaderEpoch, current.leaderEpoch)
        }
        throw err
      }
      const problem = partitionStateProblem(next)
      if (problem) throw new KafkaError('INVALID_REQUEST', `${topic}-${partition}: ${problem}`)
      const state = frozenState({ ...next, partitionEpoch: current.partitionEpoch + 1 })
      img.partitionStates.set(stateKey(topic, partition), state)
      return { result: state, changes: [{ kind: 'partition', topic, partition }] }
    })
  }

  onChange(listener: (change: StoreChange) => void): void {
    this.listeners.push(listener)
  }

  createTopic(t: NewTopic): Promise<TopicRecord> {
    return this.mutate((img) => {
      const nameErr = topicNameError(t.name)
      if (nameErr) throw new KafkaError('INVALID_TOPIC_EXCEPTION', nameErr)
      if (img.topics.has(t.name)) throw new KafkaError('TOPIC_ALREADY_EXISTS', `Topic '${t.name}' already exists.`)
      checkCounts(t.partitions, t.replicationFactor)
      let topicId = t.topicId
      if (topicId !== undefined) {
        if (!isValidUuid(topicId) || topicId === ZERO_UUID || topicId === METADATA_TOPIC_ID) {
          throw new KafkaError('INVALID_REQUEST', `Invalid topic id ${topicId}`)
        }
        if (img.byId.has(topicId)) throw new KafkaError('TOPIC_ALREADY_EXISTS', `Topic id ${topicId} is already in use`)
      } else {
        do {
          topicId = randomUuid(this.random)
        } while (img.byId.has(topicId))
      }
      const assignment = t.assignment ?? this.soleAssignment(t.partitions)
      checkAssignment(assignment, 0, t.partitions, t.replicationFactor)
      const rec = freezeTopic({
        name: t.name,
        topicId,
        partitions: t.partitions,
        replicationFactor: t.replicationFactor,
        configs: { ...t.configs },
        createdMs: this.clock.now(),
        assignment: frozenAssignment(assignment),
      })
      img.topics.set(rec.name, rec)
      img.byId.set(rec.topicId, rec)
      return { result: rec, changes: [{ kind: 'topic', name: rec.name }] }
    })
  }

  /** This broker as the only replica of each of `count` partitions. */
  private soleAssignment(count: number): number[][] {
    return Array.from({ length: count }, () => [this.nodeId])
  }

  deleteTopic(name: string): Promise<void> {
    return this.mutate((img) => {
      const rec = img.topics.get(name)
      if (!rec) throw new KafkaError('UNKNOWN_TOPIC_OR_PARTITION', `Topic '${name}' does not exist`)
      img.topics.delete(name)
      img.byId.delete(rec.topicId)
      for (let i = 0; i < rec.partitions; i++) img.partitionStates.delete(stateKey(name, i))
      return { result: undefined, changes: [{ kind: 'topic', name }] }
    })
  }

  updateTopic(
    name: string,
    patch: Partial<Pick<TopicRecord, 'partitions' | 'configs'>> & { newAssignment?: number[][] },
  ): Promise<TopicRecord> {
    return this.mutate((img) => {
      const rec = img.topics.get(name)
      if (!rec) throw new KafkaError('UNKNOWN_TOPIC_OR_PARTITION', `Topic '${name}' does not exist`)
      const partitions = patch.partitions ?? rec.partitions
      checkCounts(partitions, rec.replicationFactor)
      if (partitions < rec.partitions) {
        throw new KafkaError(
          'INVALID_PARTITIONS',
          `Topic currently has ${rec.partitions} partitions, which is higher than the requested ${partitions}.`,
        )
      }
      const added = partitions - rec.partitions
      const newAssignment = added > 0 ? (patch.newAssignment ?? this.soleAssignment(added)) : []
      if (added > 0) checkAssignment(newAssignment, rec.partitions, added, rec.replicationFactor)
      const assignment = frozenAssignment([...(rec.assignment ?? this.soleAssignment(rec.partitions)), ...newAssignment])
      const next = freezeTopic({ ...rec, partitions, configs: { ...(patch.configs ?? rec.configs) }, assignment })
      img.topics.set(name, next)
      img.byId.set(next.topicId, next)
      return { result: next, changes: [{ kind: 'topic', name }] }
    })
  }

  getBrokerConfigs(resourceName: string): Readonly<Record<string, string>> {
    return this.image.brokerConfigs.get(resourceName) ?? NO_CONFIGS
  }

  setBrokerConfigs(resourceName: string, configs: Readonly<Record<string, string>>): Promise<void> {
    return this.mutate((img) => {
      if (resourceName !== '' && !/^\d+$/.test(resourceName)) {
        throw new KafkaError('INVALID_REQUEST', `Broker config resource must be "" or a node id, not ${JSON.stringify(resourceName)}`)
      }
      if (Object.values(configs).some((v) => typeof v !== 'string')) {
        throw new KafkaError('INVALID_REQUEST', 'Broker config values must be strings')
      }
      if (Object.keys(configs).length === 0) img.brokerConfigs.delete(resourceName)
      else img.brokerConfigs.set(resourceName, Object.freeze({ ...configs }))
      return { result: undefined, changes: [{ kind: 'brokerConfigs', resourceName }] }
    })
  }

  getGroupConfigs(groupId: string): Readonly<Record<string, string>> {
    return this.image.groupConfigs.get(groupId) ?? NO_CONFIGS
  }

  setGroupConfigs(groupId: string, configs: Readonly<Record<string, string>>): Promise<void> {
    return this.mutate((img) => {
      checkGroupConfigs(groupId, configs)
      if (Object.keys(configs).length === 0) img.groupConfigs.delete(groupId)
      else img.groupConfigs.set(groupId, Object.freeze({ ...configs }))
      return { result: undefined, changes: [{ kind: 'groupConfigs', groupId }] }
    })
  }

  getSecurityEntries(kind: SecurityEntryKind): ReadonlyMap<string, string> {
    return this.image.security.get(kind) ?? NO_ENTRIES
  }

  setSecurityEntries(kind: SecurityEntryKind, entries: Readonly<Record<string, string | null>>): Promise<void> {
    return this.mutate((img) => {
      checkSecurityEntries(kind, entries)
      const next = new Map(img.security.get(kind) ?? NO_ENTRIES)
      const changes: StoreChange[] = []
      for (const [key, value] of Object.entries(entries)) {
        // Removing an absent key changes nothing and is told to nobody (as in the etcd store).
        if (value === null && !next.delete(key)) continue
        if (value !== null) next.set(key, value)
        changes.push({ kind: 'security', entry: kind, key })
      }
      if (next.size === 0) img.security.delete(kind)
      else img.security.set(kind, next)
      return { result: undefined, changes }
    })
  }

  nextProducerIdBlock(size: number): Promise<{ start: number; size: number }> {
    return this.mutate((img) => {
      if (!Number.isSafeInteger(size) || size < 1) {
        throw new KafkaError('INVALID_REQUEST', `producer id block size must be a positive integer, not ${size}`)
      }
      const start = img.nextProducerId
      if (start + size > Number.MAX_SAFE_INTEGER) throw new KafkaError('INVALID_REQUEST', 'producer ids exhausted')
      img.nextProducerId = start + size
      return { result: { start, size }, changes: [] }
    })
  }

  async close(): Promise<void> {
    this.closed = true
    await this.queue.catch(() => {})
  }

  /**
   * Runs `change` on a copy of the image under the write queue, persists the copy, then makes it
   * current and tells the listeners what changed. If `change` throws or the write fails, the image
   * stays as it was and nobody is told.
   */
  private mutate<T>(change: (img: Image) => { result: T; changes: StoreChange[] }): Promise<T> {
    if (this.closed) return Promise.reject(new Error('metadata store is closed'))
    const run = async (): Promise<T> => {
      const img: Image = {
        clusterId: this.image.clusterId,
        nextProducerId: this.image.nextProducerId,
        topics: new Map(this.image.topics),
        byId: new Map(this.image.byId),
        brokerConfigs: new Map(this.image.brokerConfigs),
        partitionStates: new Map(this.image.partitionStates),
        groupConfigs: new Map(this.image.groupConfigs),
        security: new Map(this.image.security),
      }
      const { result, changes } = change(img)
      await this.writeFile(METADATA_FILE, serialize(img))
      this.image = img
      for (const c of changes) {
        for (const l of this.listeners) {
          try {
            l(c)
          } catch {
            // A listener's failure is its own (each logs); the change is durable either way.
          }
        }
      }
      return result
    }
    const p = this.queue.then(run, run)
    this.queue = p.catch(() => {})
    return p
  }

  /** temp → fsync → rename → fsync(dir) (docs/architecture.md §3). */
  private async writeFile(name: string, text: string): Promise<void> {
    const path = join(this.dataDir, name)
    const tmp = path + TMP
    const fh = await this.fs.open(tmp, 'w')
    try {
      await fh.write(Buffer.from(text, 'utf8'), 0)
      await fh.sync()
    } finally {
      await fh.close()
    }
    await this.fs.rename(tmp, path)
    await this.fs.syncDir(this.dataDir)
  }
}

function serialize(img: Image): string {
  const file: FileV1 = {
    version: FORMAT_VERSION,
    clusterId: img.clusterId,
    nextProducerId: img.nextProducerId,
    topics: [...img.topics.values()],
  }
  if (img.brokerConfigs.size > 0) file.brokerConfigs = Object.fromEntries(img.brokerConfigs)
  if (img.partitionStates.size > 0) file.partitionStates = Object.fromEntries(img.partitionStates)
  if (img.groupConfigs.size > 0) file.groupConfigs = Object.fromEntries(img.groupConfigs)
  if (img.security.size > 0) {
    file.security = Object.fromEntries([...img.security].map(([kind, entries]) => [kind, Object.fromEntries(entries)]))
  }
  return `${JSON.stringify(file, null, 2)}\n`
}

function frozenAssignment(a: readonly (readonly number[])[]): readonly (readonly number[])[] {
  return Object.freeze(a.map((r) => Object.freeze([...r])))
}

function frozenState(s: PartitionState): PartitionState {
  return Object.freeze({
    ...s,
    replicas: Object.freeze([...s.replicas]),
    isr: Object.freeze([...s.isr]),
    addingReplicas: Object.freeze([...s.addingReplicas]),
    removingReplicas: Object.freeze([...s.removingReplicas]),
  })
}

export function metaPropertiesText(clusterId: string, nodeId: number): string {
  return formatProperties(
    [
      ['version', '1'],
      ['cluster.id', clusterId],
      ['node.id', String(nodeId)],
    ],
    'Written by Tributary when this data dir was formatted (Kafka meta.properties format)',
  )
}

async function removeIfExists(fs: Fs, path: string): Promise<void> {
  if (await fs.stat(path)) await fs.unlink(path)
}

async function readIfExists(fs: Fs, path: string): Promise<string | undefined> {
  if (!(await fs.stat(path))) return undefined
  try {
    return (await fs.readFile(path)).toString('utf8')
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return undefined
    throw new MetadataFileError(path, `cannot read: ${(err as Error).message}`)
  }
}

export async function readMetaProperties(fs: Fs, path: string): Promise<{ clusterId: string; nodeId: number } | undefined> {
  const text = await readIfExists(fs, path)
  if (text === undefined) return undefined
  let props: Map<string, string>
  try {
    props = parseProperties(text)
  } catch (err) {
    throw new MetadataFileError(path, `corrupt: ${(err as Error).message}`)
  }
  const version = props.get('version')
  // version=0 is Kafka's ZooKeeper-era layout (broker.id); version=1 is KRaft's (node.id).
  if (version !== '0' && version !== '1')
    throw new MetadataFileError(path, `unsupported or missing version ${JSON.stringify(version ?? null)}`)
  const clusterId = props.get('cluster.id')?.trim()
  if (!clusterId) throw new MetadataFileError(path, 'corrupt: no cluster.id')
  const idText = (version === '1' ? props.get('node.id') : props.get('broker.id'))?.trim()
  if (idText === undefined || !/^\d+$/.test(idText)) {
    throw new MetadataFileError(path, `corrupt: ${version === '1' ? 'node.id' : 'broker.id'} is missing or not a number`)
  }
  return { clusterId, nodeId: Number(idText) }
}

/** The metadata file's image; topics written before assignments were kept get `nodeId` as their only replica. */
async function readMetadataFile(fs: Fs, path: string, nodeId: number): Promise<Image | undefined> {
  const text = await readIfExists(fs, path)
  if (text === undefined) return undefined
  let raw: unknown
  try {
    raw = JSON.parse(text)
  } catch (err) {
    throw new MetadataFileError(path, `corrupt (not valid JSON, ${text.length} bytes): ${(err as Error).message}`)
  }
  const bad = (what: string) => new MetadataFileError(path, `corrupt: ${what}`)
  if (typeof raw !== 'object' || raw === null) throw bad('not an object')
  const f = raw as Partial<FileV1>
  if (f.version !== FORMAT_VERSION) throw new MetadataFileError(path, `unsupported version ${JSON.stringify(f.version ?? null)}`)
  if (typeof f.clusterId !== 'string' || f.clusterId === '') throw bad('no clusterId')
  if (!Number.isSafeInteger(f.nextProducerId) || f.nextProducerId! < 0) throw bad('nextProducerId is not a non-negative integer')
  if (!Array.isArray(f.topics)) throw bad('topics is not a list')
  const topics = new Map<string, TopicRecord>()
  const byId = new Map<string, TopicRecord>()
  for (const t of f.topics as unknown[]) {
    const r = t as Partial<TopicRecord> | null
    const ok =
      r !== null &&
      typeof r === 'object' &&
      typeof r.name === 'string' &&
      topicNameError(r.name) === undefined &&
      typeof r.topicId === 'string' &&
      isValidUuid(r.topicId) &&
      Number.isSafeInteger(r.partitions) &&
      r.partitions! >= 1 &&
      Number.isSafeInteger(r.replicationFactor) &&
      r.replicationFactor! >= 1 &&
      typeof r.createdMs === 'number' &&
      typeof r.configs === 'object' &&
      r.configs !== null &&
      !Array.isArray(r.configs) &&
      Object.values(r.configs).every((v) => typeof v === 'string')
    if (!ok) throw bad(`invalid topic record ${JSON.stringify(t).slice(0, 200)}`)
    const rec = r as TopicRecord
    if (topics.has(rec.name)) throw bad(`topic ${rec.name} appears twice`)
    if (byId.has(rec.topicId)) throw bad(`topic id ${rec.topicId} appears twice`)
    // Written before assignments were kept: this broker was every partition's only replica.
    const assignment = rec.assignment ?? Array.from({ length: rec.partitions }, () => [nodeId])
    try {
      checkAssignment(assignment, 0, rec.partitions, rec.assignment ? rec.replicationFactor : 1)
    } catch (err) {
      throw bad(`topic ${rec.name}: ${(err as Error).message}`)
    }
    const frozen = freezeTopic({
      name: rec.name,
      topicId: rec.topicId,
      partitions: rec.partitions,
      replicationFactor: rec.replicationFactor,
      configs: { ...rec.configs },
      createdMs: rec.createdMs,
      assignment: frozenAssignment(assignment),
    })
    topics.set(rec.name, frozen)
    byId.set(rec.topicId, frozen)
  }
  const brokerConfigs = new Map<string, Readonly<Record<string, string>>>()
  if (f.brokerConfigs !== undefined) {
    const bc = f.brokerConfigs as unknown
    if (typeof bc !== 'object' || bc === null || Array.isArray(bc)) throw bad('brokerConfigs is not an object')
    for (const [name, set] of Object.entries(bc)) {
      const ok =
        (name === '' || /^\d+$/.test(name)) &&
        typeof set === 'object' &&
        set !== null &&
        !Array.isArray(set) &&
        Object.values(set).every((v) => typeof v === 'string')
      if (!ok) throw bad(`invalid broker config set ${JSON.stringify(name)}`)
      if (Object.keys(set).length > 0) brokerConfigs.set(name, Object.freeze({ ...(set as Record<string, string>) }))
    }
  }
  const partitionStates = new Map<string, PartitionState>()
  if (f.partitionStates !== undefined) {
    const ps = f.partitionStates as unknown
    if (typeof ps !== 'object' || ps === null || Array.isArray(ps)) throw bad('partitionStates is not an object')
    for (const [key, raw] of Object.entries(ps as Record<string, Partial<PartitionState>>)) {
      const colon = key.lastIndexOf(':')
      const t = topics.get(key.slice(0, colon))
      const partition = Number(key.slice(colon + 1))
      if (!t || !Number.isSafeInteger(partition) || partition < 0 || partition >= t.partitions) {
        throw bad(`partition state ${JSON.stringify(key)} names no partition of a known topic`)
      }
      const state = {
        replicas: raw?.replicas as number[],
        isr: raw?.isr as number[],
        leader: raw?.leader as number,
        leaderEpoch: raw?.leaderEpoch as number,
        partitionEpoch: raw?.partitionEpoch as number,
        addingReplicas: raw?.addingReplicas ?? [],
        removingReplicas: raw?.removingReplicas ?? [],
      }
      const problem =
        partitionStateProblem(state) ??
        (Number.isSafeInteger(state.partitionEpoch) && state.partitionEpoch >= 0 ? undefined : 'invalid partition epoch')
      if (problem) throw bad(`partition state ${key}: ${problem}`)
      partitionStates.set(key, frozenState(state))
    }
  }
  const groupConfigs = new Map<string, Readonly<Record<string, string>>>()
  if (f.groupConfigs !== undefined) {
    const gc = f.groupConfigs as unknown
    if (typeof gc !== 'object' || gc === null || Array.isArray(gc)) throw bad('groupConfigs is not an object')
    for (const [groupId, set] of Object.entries(gc)) {
      const ok =
        groupId !== '' &&
        typeof set === 'object' &&
        set !== null &&
        !Array.isArray(set) &&
        Object.values(set).every((v) => typeof v === 'string')
      if (!ok) throw bad(`invalid group config set ${JSON.stringify(groupId)}`)
      if (Object.keys(set).length > 0) groupConfigs.set(groupId, Object.freeze({ ...(set as Record<string, string>) }))
    }
  }
  const security = new Map<SecurityEntryKind, ReadonlyMap<string, string>>()
  if (f.security !== undefined) {
    const sec = f.security as unknown
    if (typeof sec !== 'object' || sec === null || Array.isArray(sec)) throw bad('security is not an object')
    for (const [kind, set] of Object.entries(sec)) {
      const ok =
        (SECURITY_ENTRY_KINDS as readonly string[]).includes(kind) &&
        typeof set === 'object' &&
        set !== null &&
        !Array.isArray(set) &&
        Object.entries(set).every(([k, v]) => k !== '' && typeof v === 'string')
      if (!ok) throw bad(`invalid security entries ${JSON.stringify(kind)}`)
      if (Object.keys(set).length > 0) security.set(kind as SecurityEntryKind, new Map(Object.entries(set as Record<string, string>)))
    }
  }
  return { clusterId: f.clusterId, nextProducerId: f.nextProducerId!, topics, byId, brokerConfigs, partitionStates, groupConfigs, security }
}
