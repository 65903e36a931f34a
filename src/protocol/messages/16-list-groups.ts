// ListGroups (key 16), v0–5; flexible from v3. v4 filters by state and reports it (KIP-518);
// v5 filters by group type and reports it (KIP-848). An empty filter matches everything.
import { f, type Infer, message, T } from '../schema.js'

export const ListGroupsRequest = message({
  apiKey: 16,
  name: 'ListGroups',
  versions: '0-5',
  flexible: '3+',
  fields: {
    statesFilter: f.arrayOf('4+', T.string),
    typesFilter: f.arrayOf('5+', T.string),
  },
})

export const ListGroupsResponse = message({
  apiKey: 16,
  name: 'ListGroups',
  versions: '0-5',
  flexible: '3+',
  fields: {
    throttleTimeMs: f.int32('1+'),
    errorCode: f.int16('0+'),
    groups: f.array('0+', {
      groupId: f.string('0+'),
      protocolType: f.string('0+'),
      groupState: f.string('4+'),
      groupType: f.string('5+'),
    }),
  },
})

export type ListGroupsRequestData = Infer<typeof ListGroupsRequest>
export type ListGroupsResponseData = Infer<typeof ListGroupsResponse>
