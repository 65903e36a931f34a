// DescribeAcls (key 29), v1–3 (Kafka 4.4); flexible from v2. v1 added the pattern type filter
// (KIP-290: LITERAL, PREFIXED, and the filters ANY and MATCH). Codes of resource types,
// operations, permission and pattern types: src/security/acl/types.ts.
import { f, type Infer, message } from '../schema.js'

export const DescribeAclsRequest = message({
  apiKey: 29,
  name: 'DescribeAcls',
  versions: '1-3',
  flexible: '2+',
  fields: {
    resourceTypeFilter: f.int8('0+'),
    resourceNameFilter: f.string('0+', { nullable: '0+' }),
    patternTypeFilter: f.int8('1+', { default: 3 }),
    principalFilter: f.string('0+', { nullable: '0+' }),
    hostFilter: f.string('0+', { nullable: '0+' }),
    operation: f.int8('0+'),
    permissionType: f.int8('0+'),
  },
})

export const DescribeAclsResponse = message({
  apiKey: 29,
  name: 'DescribeAcls',
  versions: '1-3',
  flexible: '2+',
  fields: {
    throttleTimeMs: f.int32('0+'),
    errorCode: f.int16('0+'),
    errorMessage: f.string('0+', { nullable: '0+', default: null }),
    resources: f.array('0+', {
      resourceType: f.int8('0+'),
      resourceName: f.string('0+'),
      patternType: f.int8('1+', { default: 3 }),
      acls: f.array('0+', {
        principal: f.string('0+'),
        host: f.string('0+'),
        operation: f.int8('0+'),
        permissionType: f.int8('0+'),
      }),
    }),
  },
})

export type DescribeAclsRequestData = Infer<typeof DescribeAclsRequest>
export type DescribeAclsResponseData = Infer<typeof DescribeAclsResponse>
