// FindCoordinator (key 10), v0–6; flexible from v3. v1 adds the key type (0 = group,
// 1 = transaction, 2 = share); v4 batches: one request names several keys (coordinatorKeys) and
// the response answers each in coordinators[], replacing the single key / single answer of v0–3.
import { f, type Infer, message, T } from '../schema.js'

export const FindCoordinatorRequest = message({
  apiKey: 10,
  name: 'FindCoordinator',
  versions: '0-6',
  flexible: '3+',
  fields: {
    key: f.string('0-3'),
    keyType: f.int8('1+', { default: 0 }),
    coordinatorKeys: f.arrayOf('4+', T.string),
  },
})

export const FindCoordinatorResponse = message({
  apiKey: 10,
  name: 'FindCoordinator',
  versions: '0-6',
  flexible: '3+',
  fields: {
    throttleTimeMs: f.int32('1+'),
    errorCode: f.int16('0-3'),
    errorMessage: f.string('1-3', { nullable: '1-3' }),
    nodeId: f.int32('0-3'),
    host: f.string('0-3'),
    port: f.int32('0-3'),
    coordinators: f.array('4+', {
      key: f.string('4+'),
      nodeId: f.int32('4+'),
      host: f.string('4+'),
      port: f.int32('4+'),
      errorCode: f.int16('4+'),
      errorMessage: f.string('4+', { nullable: '4+' }),
    }),
  },
})

export type FindCoordinatorRequestData = Infer<typeof FindCoordinatorRequest>
export type FindCoordinatorResponseData = Infer<typeof FindCoordinatorResponse>
