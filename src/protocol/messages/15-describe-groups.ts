// DescribeGroups (key 15), v0–6; flexible from v5. v3 adds authorized operations; v4 adds each
// member's groupInstanceId; v6 adds a per-group error message, and an unknown group is answered
// GROUP_ID_NOT_FOUND instead of an error-free "Dead" (KIP-1043).
import { f, type Infer, message, T } from '../schema.js'

export const DescribeGroupsRequest = message({
  apiKey: 15,
  name: 'DescribeGroups',
  versions: '0-6',
  flexible: '5+',
  fields: {
    groups: f.arrayOf('0+', T.string),
    includeAuthorizedOperations: f.bool('3+'),
  },
})

export const DescribeGroupsResponse = message({
  apiKey: 15,
  name: 'DescribeGroups',
  versions: '0-6',
  flexible: '5+',
  fields: {
    throttleTimeMs: f.int32('1+'),
    groups: f.array('0+', {
      errorCode: f.int16('0+'),
      errorMessage: f.string('6+', { nullable: '6+', default: null }),
      groupId: f.string('0+'),
      groupState: f.string('0+'),
      protocolType: f.string('0+'),
      /** The selected protocol (assignor) name; filled only in the Stable state. */
      protocolData: f.string('0+'),
      members: f.array('0+', {
        memberId: f.string('0+'),
        groupInstanceId: f.string('4+', { nullable: '4+', default: null }),
        clientId: f.string('0+'),
        clientHost: f.string('0+'),
        memberMetadata: f.bytes('0+'),
        memberAssignment: f.bytes('0+'),
      }),
      authorizedOperations: f.int32('3+', { default: -2147483648 }),
    }),
  },
})

export type DescribeGroupsRequestData = Infer<typeof DescribeGroupsRequest>
export type DescribeGroupsResponseData = Infer<typeof DescribeGroupsResponse>
