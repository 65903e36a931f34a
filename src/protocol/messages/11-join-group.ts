// JoinGroup (key 11), v0–9; flexible from v6. v1 adds the rebalance timeout; v4+ members without
// an id get MEMBER_ID_REQUIRED and rejoin with the assigned one (KIP-394); v5 adds static
// membership (groupInstanceId, KIP-345); v7 echoes the protocol type (KIP-559); v8 adds the
// join reason (KIP-800); v9 adds skipAssignment.
import { f, type Infer, message } from '../schema.js'

export const JoinGroupRequest = message({
  apiKey: 11,
  name: 'JoinGroup',
  versions: '0-9',
  flexible: '6+',
  fields: {
    groupId: f.string('0+'),
    sessionTimeoutMs: f.int32('0+'),
    /** -1 where absent (v0): the session timeout applies instead. */
    rebalanceTimeoutMs: f.int32('1+', { default: -1 }),
    memberId: f.string('0+'),
    groupInstanceId: f.string('5+', { nullable: '5+', default: null }),
    protocolType: f.string('0+'),
    protocols: f.array('0+', {
      name: f.string('0+'),
      metadata: f.bytes('0+'),
    }),
    reason: f.string('8+', { nullable: '8+', default: null }),
  },
})

export const JoinGroupResponse = message({
  apiKey: 11,
  name: 'JoinGroup',
  versions: '0-9',
  flexible: '6+',
  fields: {
    throttleTimeMs: f.int32('2+'),
    errorCode: f.int16('0+'),
    generationId: f.int32('0+', { default: -1 }),
    protocolType: f.string('7+', { nullable: '7+', default: null }),
    protocolName: f.string('0+', { nullable: '7+' }),
    leader: f.string('0+'),
    skipAssignment: f.bool('9+', { default: false }),
    memberId: f.string('0+'),
    members: f.array('0+', {
      memberId: f.string('0+'),
      groupInstanceId: f.string('5+', { nullable: '5+', default: null }),
      metadata: f.bytes('0+'),
    }),
  },
})

export type JoinGroupRequestData = Infer<typeof JoinGroupRequest>
export type JoinGroupResponseData = Infer<typeof JoinGroupResponse>
