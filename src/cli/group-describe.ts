// `tributary group describe GROUP`: one group of any of the three kinds a Kafka 4 coordinator
// holds, as kafka-consumer-groups.sh --describe and kafka-share-groups.sh --describe show them.
// The kind comes from ListGroups v5 (client/admin-group-types.ts):
//
// - classic (JoinGroup/SyncGroup members; DescribeGroups) and consumer (KIP-848;
//   ConsumerGroupDescribe): members with their partitions, then per partition the committed
//   offset, the end offset (high watermark) and the lag — end − committed, '-' where nothing is
//   committed. A consumer group also shows its epochs.
// - share (KIP-932; ShareGroupDescribe): members with their partitions (several members may share
//   one), then per partition the share-partition start offset and the lag from
//   DescribeShareGroupOffsets v1 (what is neither delivered-and-acknowledged nor archived), '-'
//   before the group first read the partition.
//
// A group the coordinator calls Dead, one of another type, or one with neither members nor
// offsets "does not exist". --json prints the same facts, with "groupType".
import {
  describeGroup,
  fetchCommittedOffsets,
  type GroupDescription,
  listOffsetsOf,
  type TopicPartition,
  byTopicPartition,
} from '../client/admin-groups.js'
import {
  describeConsumerGroup,
  describeShareGroup,
  groupTypeOf,
  listShareGroupOffsets,
  type ShareGroupOffset,
  type TypedGroupDescription,
} from '../client/admin-group-types.js'
import { OffsetSpec } from '../client/admin.js'
import type { KafkaClient } from '../client/client.js'
import type { TopicAssignment } from '../protocol/consumer-protocol.js'
import { type ConnectionOptions, type JsonOption, table, ToolError, type ToolIo, withClient } from './common.js'

const LIST_GROUPS_HINT = 'list groups with: tributary group list'
const notFound = (groupId: string) => new ToolError(`group '${groupId}' does not exist`, LIST_GROUPS_HINT)
const printJson = (io: ToolIo, value: unknown) => io.stdout(`${JSON.stringify(value, null, 2)}\n`)

interface PartitionLag extends TopicPartition {
  committedOffset: number | null
  endOffset: number | null
  lag: number | null
  memberId: string | null
}

type Described =
  | { kind: 'classic'; group: GroupDescription; partitions: PartitionLag[] }
  | { kind: 'consumer'; group: TypedGroupDescription; partitions: PartitionLag[] }
  | { kind: 'share'; group: TypedGroupDescription; offsets: ShareGroupOffset[] }

export async function runDescribe(groupId: string, opts: ConnectionOptions & JsonOption, io: ToolIo): Promise<void> {
  const d = await withClient(opts, (client) => describeAny(client, groupId))
  if (d.kind === 'share') return printShare(d.group, d.offsets, opts, io)
  const totalLag = d.partitions.reduce((sum, p) => sum + (p.lag ?? 0), 0)
  if (d.kind === 'consumer') {
    const g = d.group
    if (opts.json) {
      printJson(io, { ...withoutType(g), groupType: 'consumer', partitions: d.partitions, totalLag })
      return
    }
    const facts: Array<[string, string]> = [
      ['group', g.groupId],
      ['type', 'consumer'],
      ['state', g.state],
      ['group epoch', String(g.groupEpoch)],
      ['assignment epoch', String(g.assignmentEpoch)],
      ['assignor', g.assignor || '-'],
      ['coordinator', String(g.coordinator)],
      ['members', String(g.members.length)],
    ]
    const members = table(
      ['MEMBER ID', 'INSTANCE ID', 'CLIENT ID', 'HOST', 'EPOCH', 'PARTITIONS'],
      g.members.map((m) => [
        m.memberId,
        m.instanceId ?? '-',
        m.clientId || '-',
        m.clientHost || '-',
        m.memberEpoch,
        assignmentText(m.assignment),
      ]),
    )
    io.stdout(
      `${factsText(facts)}\n${g.members.length === 0 ? 'no active members\n' : members}\n${lagText(d.partitions)}\ntotal lag: ${totalLag}\n`,
    )
    return
  }
  const group = d.group
  if (opts.json) {
    printJson(io, {
      groupId: group.groupId,
      groupType: 'classic',
      state: group.state,
      protocolType: group.protocolType,
      protocol: group.protocol,
      coordinator: group.coordinator,
      members: group.members,
      partitions: d.partitions,
      totalLag,
    })
    return
  }
  io.stdout(classicText(group, d.partitions, totalLag))
}

async function describeAny(client: KafkaClient, groupId: string): Promise<Described> {
  const type = await groupTypeOf(client, groupId)
  if (type === 'share') {
    const group = await describeShareGroup(client, groupId)
    if (!group || group.state === 'Dead') throw notFound(groupId)
    return { kind: 'share', group, offsets: await listShareGroupOffsets(client, groupId) }
  }
  if (type === 'consumer') {
    const group = await describeConsumerGroup(client, groupId)
    if (!group || group.state === 'Dead') throw notFound(groupId)
    const committed = await fetchCommittedOffsets(client, groupId)
    const assigned = group.members.map((m) => ({ memberId: m.memberId, assignment: m.assignment }))
    return { kind: 'consumer', group, partitions: await partitionLags(client, assigned, committed) }
  }
  if (type !== null && type !== 'classic') throw new ToolError(`group '${groupId}' is a ${type} group, which this tool cannot describe`)
  const group = await describeGroup(client, groupId)
  if (group.state === 'Dead') throw notFound(groupId)
  const committed = await fetchCommittedOffsets(client, groupId)
  if (group.members.length === 0 && committed.length === 0) throw notFound(groupId)
  const assigned = group.members.map((m) => ({ memberId: m.memberId, assignment: m.assignment ?? [] }))
  return { kind: 'classic', group, partitions: await partitionLags(client, assigned, committed) }
}

const withoutType = ({ groupType: _t, ...rest }: TypedGroupDescription) => rest

/** One row per partition that is assigned or has a committed offset, with its end offset and lag. */
async function partitionLags(
  client: KafkaClient,
  members: ReadonlyArray<{ memberId: string; assignment: TopicAssignment[] }>,
  committed: ReadonlyArray<TopicPartition & { offset: number }>,
): Promise<PartitionLag[]> {
  const rows = new Map<string, PartitionLag>()
  const row = (topic: string, partition: number): PartitionLag => {
    const key = `${topic}\u0000${partition}`
    let r = rows.get(key)
    if (!r) rows.set(key, (r = { topic, partition, committedOffset: null, endOffset: null, lag: null, memberId: null }))
    return r
  }
  for (const m of members) for (const a of m.assignment) for (const p of a.partitions) row(a.topic, p).memberId = m.memberId
  for (const c of committed) row(c.topic, c.partition).committedOffset = c.offset
  const list = [...rows.values()].sort(byTopicPartition)
  const ends = await listOffsetsOf(client, list, OffsetSpec.Latest)
  for (const r of list) {
    r.endOffset = ends.get(r.topic)?.get(r.partition) ?? null
    // Kafka's lag: end − committed, unknown without a commit.
    if (r.committedOffset !== null && r.endOffset !== null) r.lag = r.endOffset - r.committedOffset
  }
  return list
}

function factsText(facts: Array<[string, string]>): string {
  const width = Math.max(...facts.map(([k]) => k.length)) + 2
  return facts.map(([k, v]) => `${`${k}:`.padEnd(width)}${v}\n`).join('')
}

function lagText(partitions: PartitionLag[]): string {
  if (partitions.length === 0) return 'no partitions assigned or committed\n'
  return table(
    ['TOPIC', 'PARTITION', 'COMMITTED', 'END', 'LAG', 'MEMBER'],
    partitions.map((p) => [p.topic, p.partition, p.committedOffset, p.endOffset, p.lag, p.memberId ?? '-']),
  )
}

function classicText(group: GroupDescription, partitions: PartitionLag[], totalLag: number): string {
  const facts: Array<[string, string]> = [
    ['group', group.groupId],
    ['state', group.state],
    ['protocol type', group.protocolType || '-'],
    ['assignor', group.protocol || '-'],
    ['coordinator', String(group.coordinator)],
    ['members', String(group.members.length)],
  ]
  let out = `${factsText(facts)}\n`
  if (group.members.length === 0) out += 'no active members\n'
  else {
    out += table(
      ['MEMBER ID', 'INSTANCE ID', 'CLIENT ID', 'HOST', 'PARTITIONS'],
      group.members.map((m) => [
        m.memberId,
        m.groupInstanceId ?? '-',
        m.clientId || '-',
        m.clientHost || '-',
        m.assignment === null ? '-' : assignmentText(m.assignment),
      ]),
    )
  }
  return `${out}\n${lagText(partitions)}\ntotal lag: ${totalLag}\n`
}

function printShare(g: TypedGroupDescription, offsets: ShareGroupOffset[], opts: JsonOption, io: ToolIo): void {
  // Every partition a member is assigned, and every one the group has state for.
  const rows = new Map<string, { topic: string; partition: number; startOffset: number | null; lag: number | null; members: string[] }>()
  const row = (topic: string, partition: number) => {
    const key = `${topic}\u0000${partition}`
    let r = rows.get(key)
    if (!r) rows.set(key, (r = { topic, partition, startOffset: null, lag: null, members: [] }))
    return r
  }
  for (const o of offsets) {
    const r = row(o.topic, o.partition)
    if (o.error === null && o.startOffset >= 0) r.startOffset = o.startOffset
    if (o.error === null && o.lag >= 0) r.lag = o.lag
  }
  for (const m of g.members) for (const a of m.assignment) for (const p of a.partitions) row(a.topic, p).members.push(m.memberId)
  const partitions = [...rows.values()].sort(byTopicPartition)
  const totalLag = partitions.reduce((sum, p) => sum + (p.lag ?? 0), 0)
  if (opts.json) {
    printJson(io, { ...withoutType(g), groupType: 'share', partitions, totalLag })
    return
  }
  const facts: Array<[string, string]> = [
    ['group', g.groupId],
    ['type', 'share'],
    ['state', g.state],
    ['group epoch', String(g.groupEpoch)],
    ['assignment epoch', String(g.assignmentEpoch)],
    ['assignor', g.assignor || '-'],
    ['coordinator', String(g.coordinator)],
    ['members', String(g.members.length)],
  ]
  let out = `${factsText(facts)}\n`
  out +=
    g.members.length === 0
      ? 'no active members\n'
      : table(
          ['MEMBER ID', 'CLIENT ID', 'HOST', 'EPOCH', 'PARTITIONS'],
          g.members.map((m) => [m.memberId, m.clientId || '-', m.clientHost || '-', m.memberEpoch, assignmentText(m.assignment)]),
        )
  out += '\n'
  out +=
    partitions.length === 0
      ? 'no partitions assigned or read\n'
      : table(
          ['TOPIC', 'PARTITION', 'START OFFSET', 'LAG', 'MEMBERS'],
          partitions.map((p) => [p.topic, p.partition, p.startOffset, p.lag, p.members.length]),
        )
  io.stdout(`${out}\ntotal lag: ${totalLag}\n`)
}

function assignmentText(assignment: TopicAssignment[]): string {
  const parts = assignment
    .filter((a) => a.partitions.length > 0)
    .map((a) => `${a.topic}:${[...a.partitions].sort((x, y) => x - y).join(',')}`)
  return parts.length === 0 ? 'none' : parts.join(' ')
}
