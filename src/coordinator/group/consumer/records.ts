// The `__consumer_offsets` records of consumer-protocol groups, byte-compatible with Kafka's own
// (its ConsumerGroup*Key/Value coordinator records, as in the kafka-group-coordinator jar), and
// the snapshot of a group as such records plus its rebuild from them. Pure bytes ↔ values.
//
// Key = int16 record type + non-flexible fields; value = int16 version 0 + flexible fields (compact
// strings and arrays, tagged-field sections). Types:
//   3 ConsumerGroupMetadata          key (group)          value epoch, [tag 0] metadataHash
//   5 ConsumerGroupMemberMetadata    key (group, member)  value instanceId, rackId, clientId,
//       clientHost, subscribedTopicNames, subscribedTopicRegex, rebalanceTimeoutMs, serverAssignor,
//       [tag 0] classicMemberMetadata (a classic member's session timeout and protocols; null else)
//   6 ConsumerGroupTargetAssignmentMetadata key (group)  value assignmentEpoch, [tag 0] timestamp
//   7 ConsumerGroupTargetAssignmentMember key (group, member) value topicPartitions
//   8 ConsumerGroupCurrentMemberAssignment key (group, member) value memberEpoch,
//       previousMemberEpoch, state (0 STABLE, 1 UNREVOKED, 2 UNRELEASED), assigned, pending revocation
// Type 4 (ConsumerGroupPartitionMetadata) is deprecated in Kafka 4 and not written; type 16
// (regular-expression resolution) is not written either: a regex is re-evaluated on load.
// A tombstone (null value) of a member's three keys removes the member; of the group's metadata
// key, the group. Records are applied in log order; a later one replaces an earlier one.
import { f, message, T } from '../../../protocol/schema.js'
import { type Assignment, fromWire, toWire } from './assignment.js'
import type { MemberState } from './reconcile.js'

export const CONSUMER_GROUP_RECORD_TYPES = [3, 5, 6, 7, 8] as const

const topicPartitions = { topicId: f.uuid('0+'), partitions: f.arrayOf('0+', T.int32) }
const value = <F extends Parameters<typeof message>[0]['fields']>(apiKey: number, name: string, fields: F) =>
  message({ apiKey, name, versions: '0', flexible: '0+', fields })

export const GroupMetadataValue = value(3, 'ConsumerGroupMetadataValue', {
  epoch: f.int32('0+'),
  metadataHash: f.int64('0+', { tagged: '0+', tag: 0, default: 0 }),
})
export const MemberMetadataValue = value(5, 'ConsumerGroupMemberMetadataValue', {
  instanceId: f.string('0+', { nullable: '0+' }),
  rackId: f.string('0+', { nullable: '0+' }),
  clientId: f.string('0+'),
  clientHost: f.string('0+'),
  subscribedTopicNames: f.arrayOf('0+', T.string),
  subscribedTopicRegex: f.string('0+', { nullable: '0+' }),
  rebalanceTimeoutMs: f.int32('0+', { default: -1 }),
  serverAssignor: f.string('0+', { nullable: '0+' }),
  classicMemberMetadata: f.struct(
    '0+',
    {
      sessionTimeoutMs: f.int32('0+'),
      supportedProtocols: f.array('0+', { name: f.string('0+'), metadata: f.bytes('0+') }),
    },
    { nullable: '0+', tagged: '0+', tag: 0, default: null },
  ),
})
export const TargetMetadataValue = value(6, 'ConsumerGroupTargetAssignmentMetadataValue', {
  assignmentEpoch: f.int32('0+'),
  assignmentTimestamp: f.int64('0+', { tagged: '0+', tag: 0, default: 0 }),
})
export const TargetMemberValue = value(7, 'ConsumerGroupTargetAssignmentMemberValue', {
  topicPartitions: f.array('0+', topicPartitions),
})
export const CurrentAssignmentValue = value(8, 'ConsumerGroupCurrentMemberAssignmentValue', {
  memberEpoch: f.int32('0+'),
  previousMemberEpoch: f.int32('0+'),
  state: f.int8('0+'),
  assignedPartitions: f.array('0+', topicPartitions),
  partitionsPendingRevocation: f.array('0+', topicPartitions),
})

const STATE_CODES: Record<MemberState, number> = { STABLE: 0, UNREVOKED_PARTITIONS: 1, UNRELEASED_PARTITIONS: 2 }

export interface ConsumerGroupRecord {
  key: Buffer
  value: Buffer | null
}

export type ConsumerRecordKey = { type: 3 | 6; group: string; member?: undefined } | { type: 5 | 7 | 8; group: string; member: string }

const GroupKey = message({ apiKey: 3, name: 'ConsumerGroupKey', versions: '0', flexible: 'none', fields: { group: f.string('0') } })
const MemberKey = message({
  apiKey: 5,
  name: 'ConsumerGroupMemberKey',
  versions: '0',
  flexible: 'none',
  fields: { group: f.string('0'), member: f.string('0') },
})

export function encodeKey(k: ConsumerRecordKey): Buffer {
  const type = Buffer.alloc(2)
  type.writeInt16BE(k.type)
  return Buffer.concat([type, k.member !== undefined ? MemberKey.encode(0, k) : GroupKey.encode(0, k)])
}

export function decodeKey(key: Buffer): ConsumerRecordKey {
  const type = key.readInt16BE(0)
  const body = key.subarray(2)
  if (type === 3 || type === 6) return { type, group: GroupKey.decode(0, body).group }
  if (type === 5 || type === 7 || type === 8) return { type, ...MemberKey.decode(0, body) }
  throw new Error(`not a consumer group record key type: ${type}`)
}

function withVersion(body: Buffer): Buffer {
  return Buffer.concat([Buffer.from([0, 0]), body])
}

/** What a classic member of a consumer group joined with (its JoinGroup's session timeout and protocols). */
export interface ClassicMemberInfo {
  sessionTimeoutMs: number
  protocols: Array<{ name: string; metadata: Buffer }>
}

/** A group's state as the values a snapshot holds. */
export interface MemberImage {
  memberId: string
  instanceId: string | null
  rackId: string | null
  clientId: string
  clientHost: string
  subscribedTopicNames: string[]
  subscribedTopicRegex: string | null
  rebalanceTimeoutMs: number
  serverAssignor: string | null
  /** Null for a consumer-protocol member. */
  classic: ClassicMemberInfo | null
  memberEpoch: number
  previousMemberEpoch: number
  state: MemberState
  assigned: Assignment
  pendingRevocation: Assignment
  target: Assignment
}

export interface GroupImage {
  groupId: string
  groupEpoch: number
  targetAssignmentEpoch: number
  members: MemberImage[]
}

/** The records that rebuild the group (Kafka writes the same types, member records first). */
export function groupRecords(g: GroupImage, nowMs: number): ConsumerGroupRecord[] {
  const out: ConsumerGroupRecord[] = []
  for (const m of g.members) {
    const key = (type: 5 | 7 | 8) => encodeKey({ type, group: g.groupId, member: m.memberId })
    const classicMemberMetadata =
      m.classic === null ? null : { sessionTimeoutMs: m.classic.sessionTimeoutMs, supportedProtocols: m.classic.protocols }
    out.push({ key: key(5), value: withVersion(MemberMetadataValue.encode(0, { ...m, classicMemberMetadata })) })
    out.push({ key: key(7), value: withVersion(TargetMemberValue.encode(0, { topicPartitions: toWire(m.target) })) })
    out.push({
      key: key(8),
      value: withVersion(
        CurrentAssignmentValue.encode(0, {
          memberEpoch: m.memberEpoch,
          previousMemberEpoch: m.previousMemberEpoch,
          state: STATE_CODES[m.state],
          assignedPartitions: toWire(m.assigned),
          partitionsPendingRevocation: toWire(m.pendingRevocation),
        }),
      ),
    })
  }
  out.push({
    key: encodeKey({ type: 6, group: g.groupId }),
    value: withVersion(TargetMetadataValue.encode(0, { assignmentEpoch: g.targetAssignmentEpoch, assignmentTimestamp: nowMs })),
  })
  out.push({ key: encodeKey({ type: 3, group: g.groupId }), value: withVersion(GroupMetadataValue.encode(0, { epoch: g.groupEpoch })) })
  return out
}

/** Tombstones for a member that left. */
export function memberTombstones(groupId: string, memberId: string): ConsumerGroupRecord[] {
  return ([5, 7, 8] as const).map((type) => ({ key: encodeKey({ type, group: groupId, member: memberId }), value: null }))
}

/** Applies records in log order; returns the groups they describe. */
export function replayGroups(records: Iterable<ConsumerGroupRecord>): Map<string, GroupImage> {
  const groups = new Map<string, { epoch: number; targetEpoch: number; members: Map<string, Partial<MemberImage>> }>()
  for (const rec of records) {
    const k = decodeKey(rec.key)
    let g = groups.get(k.group)
    if (g === undefined) {
      g = { epoch: 0, targetEpoch: 0, members: new Map() }
      groups.set(k.group, g)
    }
    if (rec.value === null) {
      if (k.type === 5 || k.type === 7 || k.type === 8) g.members.delete(k.member)
      else if (k.type === 3) groups.delete(k.group)
      continue
    }
    const body = rec.value.subarray(2)
    if (k.type === 3) g.epoch = GroupMetadataValue.decode(0, body).epoch
    else if (k.type === 6) g.targetEpoch = TargetMetadataValue.decode(0, body).assignmentEpoch
    else if (k.member !== undefined) {
      const m: Partial<MemberImage> = g.members.get(k.member) ?? { memberId: k.member }
      g.members.set(k.member, m)
      if (k.type === 5) {
        const { classicMemberMetadata, ...v } = MemberMetadataValue.decode(0, body)
        const classic =
          classicMemberMetadata === null
            ? null
            : { sessionTimeoutMs: classicMemberMetadata.sessionTimeoutMs, protocols: classicMemberMetadata.supportedProtocols }
        Object.assign(m, v, { classic })
      } else if (k.type === 7) m.target = fromWire(TargetMemberValue.decode(0, body).topicPartitions)
      else {
        const v = CurrentAssignmentValue.decode(0, body)
        const state = (Object.keys(STATE_CODES) as MemberState[]).find((s) => STATE_CODES[s] === v.state) ?? 'STABLE'
        Object.assign(m, {
          memberEpoch: v.memberEpoch,
          previousMemberEpoch: v.previousMemberEpoch,
          state,
          assigned: fromWire(v.assignedPartitions),
          pendingRevocation: fromWire(v.partitionsPendingRevocation),
        })
      }
    }
  }
  const out = new Map<string, GroupImage>()
  for (const [groupId, g] of groups) {
    const members = [...g.members.values()].filter(
      (m): m is MemberImage => m.clientId !== undefined && m.memberEpoch !== undefined && m.target !== undefined,
    )
    out.set(groupId, { groupId, groupEpoch: g.epoch, targetAssignmentEpoch: g.targetEpoch, members })
  }
  return out
}
