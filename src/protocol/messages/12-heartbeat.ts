// Heartbeat (key 12), v0–4; flexible from v4. v3 adds groupInstanceId (static membership).
import { f, type Infer, message } from '../schema.js'

export const HeartbeatRequest = message({
  apiKey: 12,
  name: 'Heartbeat',
  versions: '0-4',
  flexible: '4+',
  fields: {
    groupId: f.string('0+'),
    generationId: f.int32('0+'),
    memberId: f.string('0+'),
    groupInstanceId: f.string('3+', { nullable: '3+', default: null }),
  },
})

export const HeartbeatResponse = message({
  apiKey: 12,
  name: 'Heartbeat',
  versions: '0-4',
  flexible: '4+',
  fields: {
    throttleTimeMs: f.int32('1+'),
    errorCode: f.int16('0+'),
  },
})

export type HeartbeatRequestData = Infer<typeof HeartbeatRequest>
export type HeartbeatResponseData = Infer<typeof HeartbeatResponse>
