// DeleteGroups (key 42), v0–3; flexible from v2. v3 adds a per-group error message to the
// response (the request is unchanged).
import { f, type Infer, message, T } from '../schema.js'

export const DeleteGroupsRequest = message({
  apiKey: 42,
  name: 'DeleteGroups',
  versions: '0-3',
  flexible: '2+',
  fields: {
    groupsNames: f.arrayOf('0+', T.string),
  },
})

export const DeleteGroupsResponse = message({
  apiKey: 42,
  name: 'DeleteGroups',
  versions: '0-3',
  flexible: '2+',
  fields: {
    throttleTimeMs: f.int32('0+'),
    results: f.array('0+', {
      groupId: f.string('0+'),
      errorCode: f.int16('0+'),
      errorMessage: f.string('3+', { nullable: '3+', default: null }),
    }),
  },
})

export type DeleteGroupsRequestData = Infer<typeof DeleteGroupsRequest>
export type DeleteGroupsResponseData = Infer<typeof DeleteGroupsResponse>
