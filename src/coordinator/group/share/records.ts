// The `__consumer_offsets` records of share groups, byte-compatible with Kafka's own (its
// ShareGroup*Key/Value coordinator records of the group coordinator), and a group's image as such
// records plus its rebuild from them. Pure bytes ↔ values.
//
// Key = int16 record type + non-flexible fields; value = int16 version 0 + flexible fields. Types:
//   10 ShareGroupMemberMetadata          key (group, member)  value rackId, clientId, clientHost,
//        subscribedTopicNames
//   11 ShareGroupMetadata                key (group)          value epoch, metadataHash
//   12 ShareGroupTargetAssignmentMetadata key (group)         value assignmentEpoch, [tag 0] timestamp
//   13 ShareGroupTargetAssignmentMember  key (group, member)  value topicPartitions
//   14 ShareGroupCurrentMemberAssignment key (group, member)  value memberEpoch, previousMemberEpoch,
//        state (0 STABLE), assignedPartitions
//   15 ShareGroupStatePartitionMetadata  key (group)          value initializing, initialized and
//        deleting topics (id, name, partitions) — the share-partitions whose state the share
//        coordinator holds for the group, which DeleteGroups and the offsets admin APIs work on.
// A tombstone of a member's keys removes the member; of type 11, the group (Kafka writes the
// group's tombstones when it is deleted). Records apply in log order; a later one replaces an
// earlier one.
import { f, message, T } from '../../../protocol/schema.js'
import { type Assignment, fromWire, toWire } from '../consumer/assignment.js'

export const SHARE_GROUP_RECORD_TYPES: ReadonlySet<number> = new Set([10, 11, 12, 13, 14, 15])

const topicPartitions = { topicId: f.uuid('0+'), partitions: f.arrayOf('0+', T.int32) }
const value = <F extends Parameters<typeof message>[0]['fields']>(apiKey: number, name: string, fields: F) =>
  message({ apiKey, name, versions: '0', flexible: '0+', fields })

const MemberMetadataValue = value(10, 'ShareGroupMemberMetadataValue', {
  rackId: f.string('0+', { nullable: '0+' }),
  clientId: f.string('0+'),
  clientHost: f.string('0+'),
  subscribedTopicNames: f.arrayOf('0+', T.string),
})
const GroupMetadataValue = value(11, 'ShareGroupMetadataValue', {
  epoch: f.int32('0+'),
  metadataHash: f.int64('0+'),
})
const TargetMetadataValue = value(12, 'ShareGroupTargetAssignmentMetadataValue', {
  assignmentEpoch: f.int32('0+'),
  assignmentTimestamp: f.int64('0+', { tagged: '0+', tag: 0, default: 0 }),
})
const TargetMemberValue = value(13, 'ShareGroupTargetAssignmentMemberValue', { topicPartitions: f.array('0+', topicPartitions) })
const CurrentAssignmentValue = value(14, 'ShareGroupCurrentMemberAssignmentValue', {
  memberEpoch: f.int32('0+'),
  previousMemberEpoch: f.int32('0+'),
  state: f.int8('0+'),
  assignedPartitions: f.array('0+', topicPartitions),
})
const topicInfo = { topicId: f.uuid('0+'), topicName: f.string('0+'), partitions: f.arrayOf('0+', T.int32) }
const StatePartitionMetadataValue = value(15, 'ShareGroupStatePartitionMetadataValue', {
  initializingTopics: f.array('0+', topicInfo),
  initializedTopics: f.array('0+', topicInfo),
  deletingTopics: f.array('0+', { topicId: f.uuid('0+'), topicName: f.string('0+') }),
})

const GroupKey = message({ apiKey: 11, name: 'ShareGroupKey', versions: '0', flexible: 'none', fields: { group: f.string('0') } })
const MemberKey = message({
  apiKey: 10,
  name: 'ShareGroupMemberKey',
  versions: '0',
  flexible: 'none',
  fields: { group: f.string('0'), member: f.string('0') },
})

export type ShareRecordKey =
  | { type: 11 | 12 | 15; group: string; member?: undefined }
  | { type: 10 | 13 | 14; group: string; member: string }

export interface ShareGroupRecord {
  key: Buffer
  value: Buffer | null
}

const isMemberType = (t: number): t is 10 | 13 | 14 => t === 10 || t === 13 || t === 14

export function encodeShareKey(k: ShareRecordKey): Buffer {
  const type = Buffer.alloc(2)
  type.writeInt16BE(k.type)
  return Buffer.concat([type, k.member !== undefined ? MemberKey.encode(0, k) : GroupKey.encode(0, k)])
}

/** The record's key; null when the key is not a share group record's. Throws on bytes that do not decode. */
export function decodeShareKey(key: Buffer): ShareRecordKey | null {
  if (key.length < 2) return null
  const type = key.readInt16BE(0)
  const body = key.subarray(2)
  if (type === 11 || type === 12 || type === 15) return { type, group: GroupKey.decode(0, body).group }
  if (isMemberType(type)) return { type, ...MemberKey.decode(0, body) }
  return null
}

/** The group id of a share group record's key (the partition it lives in), or null for another record. */
export function shareRecordGroup(key: Buffer): string | null {
  try {
    return decodeShareKey(key)?.group ?? null
  } catch {
    return null
  }
}

const withVersion = (body: Buffer): Buffer => Buffer.concat([Buffer.from([0, 0]), body])

export interface ShareMemberImage {
  memberId: string
  rackId: string | null
  clientId: string
  clientHost: string
  subscribedTopicNames: string[]
  memberEpoch: number
  previousMemberEpoch: number
  assigned: Assignment
  target: Assignment
}

/** A topic whose share-partitions hold state for the group (the share coordinator keeps it). */
export interface ShareStateTopic {
  topicId: string
  topicName: string
  partitions: number[]
}

export interface ShareGroupImage {
  groupId: string
  groupEpoch: number
  targetAssignmentEpoch: number
  members: ShareMemberImage[]
  /** Topics whose share-partition state was initialized (by an assignment or AlterShareGroupOffsets). */
  stateTopics: ShareStateTopic[]
}

/** Records that rebuild one member (types 10, 13, 14). */
export function memberRecords(groupId: string, m: ShareMemberImage): ShareGroupRecord[] {
  const key = (type: 10 | 13 | 14) => encodeShareKey({ type, group: groupId, member: m.memberId })
  return [
    { key: key(10), value: withVersion(MemberMetadataValue.encode(0, m)) },
    { key: key(13), value: withVersion(TargetMemberValue.encode(0, { topicPartitions: toWire(m.target) })) },
    {
      key: key(14),
      value: withVersion(
        CurrentAssignmentValue.encode(0, {
          memberEpoch: m.memberEpoch,
          previousMemberEpoch: m.previousMemberEpoch,
          state: 0,
          assignedPartitions: toWire(m.assigned),
        }),
      ),
    },
  ]
}

/** Records of the group itself (types 15, 12, 11 — the group's epoch last, as Kafka orders them). */
export function groupLevelRecords(g: ShareGroupImage, nowMs: number): ShareGroupRecord[] {
  const initializedTopics = g.stateTopics.map((t) => ({ ...t, partitions: [...t.partitions].sort((a, b) => a - b) }))
  return [
    {
      key: encodeShareKey({ type: 15, group: g.groupId }),
      value: withVersion(StatePartitionMetadataValue.encode(0, { initializingTopics: [], initializedTopics, deletingTopics: [] })),
    },
    {
      key: encodeShareKey({ type: 12, group: g.groupId }),
      value: withVersion(TargetMetadataValue.encode(0, { assignmentEpoch: g.targetAssignmentEpoch, assignmentTimestamp: nowMs })),
    },
    {
      key: encodeShareKey({ type: 11, group: g.groupId }),
      value: withVersion(GroupMetadataValue.encode(0, { epoch: g.groupEpoch, metadataHash: 0 })),
    },
  ]
}

/** Every record that rebuilds the group. */
export function shareGroupRecords(g: ShareGroupImage, nowMs: number): ShareGroupRecord[] {
  return [...g.members.flatMap((m) => memberRecords(g.groupId, m)), ...groupLevelRecords(g, nowMs)]
}

export function shareMemberTombstones(groupId: string, memberId: string): ShareGroupRecord[] {
  return ([10, 13, 14] as const).map((type) => ({ key: encodeShareKey({ type, group: groupId, member: memberId }), value: null }))
}

/** The group's tombstones (a deleted group): its members' and its own. */
export function shareGroupTombstones(groupId: string, memberIds: readonly string[]): ShareGroupRecord[] {
  return [
    ...memberIds.flatMap((m) => shareMemberTombstones(groupId, m)),
    ...([15, 12, 11] as const).map((type) => ({ key: encodeShareKey({ type, group: groupId }), value: null })),
  ]
}

interface Partial {
  epoch: number
  targetEpoch: number
  stateTopics: ShareStateTopic[]
  members: Map<string, { memberId: string } & Record<string, unknown>>
}

/** Rebuilds share groups from their records, applied in log order. Throws on a value that does not decode. */
export class ShareGroupReplay {
  private readonly groups = new Map<string, Partial>()

  apply(key: Buffer, val: Buffer | null): void {
    const k = decodeShareKey(key)
    if (k === null) return
    let g = this.groups.get(k.group)
    if (g === undefined) {
      if (val === null) return
      g = { epoch: 0, targetEpoch: 0, stateTopics: [], members: new Map() }
      this.groups.set(k.group, g)
    }
    if (val === null) {
      if (k.member !== undefined) g.members.delete(k.member)
      else if (k.type === 11) this.groups.delete(k.group)
      else if (k.type === 15) g.stateTopics = []
      return
    }
    const body = val.subarray(2)
    if (k.type === 11) g.epoch = GroupMetadataValue.decode(0, body).epoch
    else if (k.type === 12) g.targetEpoch = TargetMetadataValue.decode(0, body).assignmentEpoch
    else if (k.type === 15) {
      const v = StatePartitionMetadataValue.decode(0, body)
      g.stateTopics = [...v.initializedTopics, ...v.initializingTopics].map((t) => ({ ...t, partitions: [...t.partitions] }))
    } else if (k.member !== undefined) {
      const m: { memberId: string } & Record<string, unknown> = g.members.get(k.member) ?? { memberId: k.member }
      g.members.set(k.member, m)
      if (k.type === 10) Object.assign(m, MemberMetadataValue.decode(0, body))
      else if (k.type === 13) m.target = fromWire(TargetMemberValue.decode(0, body).topicPartitions)
      else {
        const v = CurrentAssignmentValue.decode(0, body)
        Object.assign(m, {
          memberEpoch: v.memberEpoch,
          previousMemberEpoch: v.previousMemberEpoch,
          assigned: fromWire(v.assignedPartitions),
        })
      }
    }
  }

  /** The groups the records describe (members missing one of their records are left out). */
  images(): Map<string, ShareGroupImage> {
    const out = new Map<string, ShareGroupImage>()
    for (const [groupId, g] of this.groups) {
      const members = [...g.members.values()].filter(
        (m) => m.clientId !== undefined && m.memberEpoch !== undefined && m.target !== undefined,
      ) as unknown as ShareMemberImage[]
      out.set(groupId, { groupId, groupEpoch: g.epoch, targetAssignmentEpoch: g.targetEpoch, members, stateTopics: g.stateTopics })
    }
    return out
  }
}
