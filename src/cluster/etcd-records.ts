// The values of the etcd metadata store's keys (etcd-store.ts has the key layout): JSON parsing
// and validation of every record read from etcd — a key that does not hold a valid record is
// reported, never applied — and the checks and errors of the store's writes.
import { KafkaError } from '../protocol/errors.js'
import { freezeTopic, type PartitionState, type TopicRecord } from '../ports/metadata-store.js'
import { isBrokerList, partitionStateProblem } from './partition-states.js'
import { topicNameError } from './topic-names.js'
import { isValidUuid } from './uuid.js'

export const topicExists = (name: string) => new KafkaError('TOPIC_ALREADY_EXISTS', `Topic '${name}' already exists.`)
export const idInUse = (id: string) => new KafkaError('TOPIC_ALREADY_EXISTS', `Topic id ${id} is already in use`)
export const unknownTopic = (name: string) => new KafkaError('UNKNOWN_TOPIC_OR_PARTITION', `Topic '${name}' does not exist`)

export function staleVersion(what: string, read: number, found: number): KafkaError {
  return new KafkaError(
    'INVALID_UPDATE_VERSION',
    `${what} was changed by another broker (etcd revision ${found}) after this broker read it (revision ${read}); retry`,
  )
}

export function sameTopic(a: TopicRecord, b: TopicRecord): boolean {
  return (
    a.partitions === b.partitions &&
    a.replicationFactor === b.replicationFactor &&
    a.createdMs === b.createdMs &&
    JSON.stringify(a.configs) === JSON.stringify(b.configs) &&
    JSON.stringify(a.assignment) === JSON.stringify(b.assignment)
  )
}

export function parseJson(value: Buffer): Record<string, unknown> | undefined {
  try {
    const v = JSON.parse(value.toString('utf8'))
    return typeof v === 'object' && v !== null && !Array.isArray(v) ? v : undefined
  } catch {
    return undefined
  }
}

export const isStringMap = (v: unknown): v is Record<string, string> =>
  typeof v === 'object' && v !== null && !Array.isArray(v) && Object.values(v).every((x) => typeof x === 'string')

export function parseClusterId(value: Buffer): string | undefined {
  const id = parseJson(value)?.clusterId
  return typeof id === 'string' && id !== '' ? id : undefined
}

export function parseProducerIds(value: Buffer): number | undefined {
  const n = parseJson(value)?.nextProducerId
  return Number.isSafeInteger(n) && (n as number) >= 0 ? (n as number) : undefined
}

export function parseBrokerConfigs(value: Buffer): Readonly<Record<string, string>> | undefined {
  const configs = parseJson(value)?.configs
  return isStringMap(configs) ? Object.freeze({ ...configs }) : undefined
}

export function parseTopic(value: Buffer, name: string): TopicRecord | undefined {
  const r = parseJson(value) as Partial<TopicRecord> | undefined
  const ok =
    r !== undefined &&
    r.name === name &&
    topicNameError(name) === undefined &&
    typeof r.topicId === 'string' &&
    isValidUuid(r.topicId) &&
    Number.isSafeInteger(r.partitions) &&
    r.partitions! >= 1 &&
    Number.isSafeInteger(r.replicationFactor) &&
    r.replicationFactor! >= 1 &&
    typeof r.createdMs === 'number' &&
    isStringMap(r.configs)
  if (!ok) return undefined
  const assignment = r.assignment
  const validAssignment =
    Array.isArray(assignment) && assignment.length === r.partitions && assignment.every((a) => isBrokerList(a) && a.length > 0)
  if (assignment !== undefined && !validAssignment) return undefined
  return freezeTopic({
    name,
    topicId: r.topicId!,
    partitions: r.partitions!,
    replicationFactor: r.replicationFactor!,
    configs: { ...r.configs! },
    createdMs: r.createdMs!,
    ...(assignment ? { assignment: Object.freeze(assignment.map((a) => Object.freeze([...a]))) } : {}),
  })
}

export function parsePartitionState(value: Buffer): PartitionState | undefined {
  const r = parseJson(value) as Partial<PartitionState> | undefined
  if (!r || !Number.isSafeInteger(r.partitionEpoch) || r.partitionEpoch! < 0) return undefined
  const s = {
    replicas: r.replicas!,
    isr: r.isr!,
    leader: r.leader!,
    leaderEpoch: r.leaderEpoch!,
    partitionEpoch: r.partitionEpoch!,
    addingReplicas: r.addingReplicas ?? [],
    removingReplicas: r.removingReplicas ?? [],
  }
  if (partitionStateProblem(s)) return undefined
  return Object.freeze(s)
}
