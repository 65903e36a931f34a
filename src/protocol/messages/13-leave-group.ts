// LeaveGroup (key 13), v0–5; flexible from v4. v0–2 remove one member (memberId); v3+ remove a
// batch of members, each by member id and/or group instance id, with a result per member;
// v5 adds a per-member reason (KIP-800).
import { f, type Infer, message } from '../schema.js'

export const LeaveGroupRequest = message({
  apiKey: 13,
  name: 'LeaveGroup',
  versions: '0-5',
  flexible: '4+',
  fields: {
    groupId: f.string('0+'),
    memberId: f.string('0-2'),
    members: f.array('3+', {
      memberId: f.string('3+'),
      groupInstanceId: f.string('3+', { nullable: '3+', default: null }),
      reason: f.string('5+', { nullable: '5+', default: null }),
    }),
  },
})

export const LeaveGroupResponse = message({
  apiKey: 13,
  name: 'LeaveGroup',
  versions: '0-5',
  flexible: '4+',
  fields: {
    throttleTimeMs: f.int32('1+'),
    errorCode: f.int16('0+'),
    members: f.array('3+', {
      memberId: f.string('3+'),
      groupInstanceId: f.string('3+', { nullable: '3+' }),
      errorCode: f.int16('3+'),
    }),
  },
})

export type LeaveGroupRequestData = Infer<typeof LeaveGroupRequest>
export type LeaveGroupResponseData = Infer<typeof LeaveGroupResponse>
