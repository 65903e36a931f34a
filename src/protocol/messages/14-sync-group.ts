// SyncGroup (key 14), v0–5; flexible from v4. v3 adds groupInstanceId (static membership);
// v5 carries the protocol type and name both ways, so the coordinator can check them (KIP-559).
import { f, type Infer, message } from '../schema.js'

export const SyncGroupRequest = message({
  apiKey: 14,
  name: 'SyncGroup',
  versions: '0-5',
  flexible: '4+',
  fields: {
    groupId: f.string('0+'),
    generationId: f.int32('0+'),
    memberId: f.string('0+'),
    groupInstanceId: f.string('3+', { nullable: '3+', default: null }),
    protocolType: f.string('5+', { nullable: '5+', default: null }),
    protocolName: f.string('5+', { nullable: '5+', default: null }),
    /** Filled by the group leader only. */
    assignments: f.array('0+', {
      memberId: f.string('0+'),
      assignment: f.bytes('0+'),
    }),
  },
})

export const SyncGroupResponse = message({
  apiKey: 14,
  name: 'SyncGroup',
  versions: '0-5',
  flexible: '4+',
  fields: {
    throttleTimeMs: f.int32('1+'),
    errorCode: f.int16('0+'),
    protocolType: f.string('5+', { nullable: '5+', default: null }),
    protocolName: f.string('5+', { nullable: '5+', default: null }),
    assignment: f.bytes('0+'),
  },
})

export type SyncGroupRequestData = Infer<typeof SyncGroupRequest>
export type SyncGroupResponseData = Infer<typeof SyncGroupResponse>
