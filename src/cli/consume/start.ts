// Where `tributary consume` starts: the topic's partitions (refusing a topic or partition that does
// not exist, with what to do instead) and the start offset of each, from ListOffsets.
import { listOffsets, OffsetSpec } from '../../client/admin.js'
import type { KafkaClient } from '../../client/client.js'
import type { TopicInfo } from '../../client/metadata.js'
import { ToolError } from '../common.js'
import type { StartSpec } from './options.js'

const METADATA_ATTEMPTS = 20

/** The topic's metadata; ToolError when it does not exist (no auto-creation: reading must not create). */
export async function describeTopic(client: KafkaClient, topic: string): Promise<TopicInfo> {
  for (let attempt = 0; ; attempt++) {
    const md = await client.metadata([topic], { refresh: attempt > 0 })
    const info = md.topics.get(topic)
    if (!info || info.error === 'UNKNOWN_TOPIC_OR_PARTITION') {
      throw new ToolError(`topic '${topic}' does not exist`, 'list topics with: tributary topic list')
    }
    if (info.error === 'TOPIC_AUTHORIZATION_FAILED') {
      throw new ToolError(`not authorized to read topic '${topic}'`, 'ask for Read and Describe on the topic')
    }
    const leaderless = info.error !== null || info.partitions.some((p) => p.leader < 0)
    if (!leaderless || attempt + 1 >= METADATA_ATTEMPTS) {
      if (info.error !== null) throw new ToolError(`topic '${topic}' is not available: ${info.error}`, 'check the brokers, then try again')
      return info
    }
    await new Promise((r) => setTimeout(r, 250)) // a topic just created may not have leaders yet
  }
}

/** The partitions to read: all of the topic's, or the ones asked for, which must exist. */
export function choosePartitions(info: TopicInfo, wanted: number[] | null): number[] {
  const all = info.partitions.map((p) => p.partition)
  if (wanted === null) return all
  const missing = wanted.filter((p) => !all.includes(p))
  if (missing.length > 0) {
    throw new ToolError(
      `partition ${missing.join(', ')} of topic '${info.name}' does not exist`,
      `topic '${info.name}' has ${all.length} partition${all.length === 1 ? '' : 's'}: ${formatPartitions(all)}`,
    )
  }
  return wanted
}

/** The start offset of each partition for a StartSpec; with readCommitted "latest" is the last stable offset. */
export async function resolveStart(
  client: KafkaClient,
  topic: string,
  partitions: number[],
  spec: StartSpec,
  readCommitted = false,
): Promise<Map<number, number>> {
  if (partitions.length === 0) return new Map()
  switch (spec.kind) {
    case 'earliest':
      return listOffsets(client, topic, partitions, OffsetSpec.Earliest)
    case 'latest':
      return listOffsets(client, topic, partitions, OffsetSpec.Latest, readCommitted)
    case 'offset':
      // Beyond the log, the first Fetch gets OFFSET_OUT_OF_RANGE and the reset policy applies.
      return new Map(partitions.map((p) => [p, spec.offset]))
    case 'last': {
      const [earliest, latest] = await Promise.all([
        listOffsets(client, topic, partitions, OffsetSpec.Earliest),
        listOffsets(client, topic, partitions, OffsetSpec.Latest, readCommitted),
      ])
      return new Map(partitions.map((p) => [p, Math.max(earliest.get(p)!, latest.get(p)! - spec.count)]))
    }
    case 'timestamp': {
      // The first offset whose timestamp is ≥ T; -1 when there is none: then the end.
      const [byTime, latest] = await Promise.all([
        listOffsets(client, topic, partitions, spec.timestampMs),
        listOffsets(client, topic, partitions, OffsetSpec.Latest),
      ])
      return new Map(partitions.map((p) => [p, byTime.get(p)! >= 0 ? byTime.get(p)! : latest.get(p)!]))
    }
  }
}

export function describeStart(spec: StartSpec): string {
  switch (spec.kind) {
    case 'earliest':
      return 'the beginning'
    case 'latest':
      return 'the end'
    case 'offset':
      return `offset ${spec.offset}`
    case 'last':
      return `the last ${spec.count} record${spec.count === 1 ? '' : 's'}`
    case 'timestamp':
      return `${new Date(spec.timestampMs).toISOString()}`
  }
}

/** 0-3,5 style. */
export function formatPartitions(partitions: readonly number[]): string {
  if (partitions.length === 0) return 'none'
  const sorted = [...partitions].sort((a, b) => a - b)
  const runs: string[] = []
  let from = sorted[0]!
  let prev = from
  for (const p of [...sorted.slice(1), Number.NaN]) {
    if (p === prev + 1) {
      prev = p
      continue
    }
    runs.push(from === prev ? String(from) : `${from}-${prev}`)
    from = prev = p
  }
  return runs.join(',')
}
