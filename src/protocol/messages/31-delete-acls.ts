// DeleteAcls (key 31), v1–3 (Kafka 4.4); flexible from v2. v1 added the pattern type filter
// (KIP-290). One result per filter, listing the bindings it matched (and deleted).
import { f, type Infer, message } from '../schema.js'

export const DeleteAclsRequest = message({
  apiKey: 31,
  name: 'DeleteAcls',
  versions: '1-3',
  flexible: '2+',
  fields: {
    filters: f.array('0+', {
      resourceTypeFilter: f.int8('0+'),
      resourceNameFilter: f.string('0+', { nullable: '0+' }),
      patternTypeFilter: f.int8('1+', { default: 3 }),
      principalFilter: f.string('0+', { nullable: '0+' }),
      hostFilter: f.string('0+', { nullable: '0+' }),
      operation: f.int8('0+'),
      permissionType: f.int8('0+'),
    }),
  },
})

export const DeleteAclsResponse = message({
  apiKey: 31,
  name: 'DeleteAcls',
  versions: '1-3',
  flexible: '2+',
  fields: {
    throttleTimeMs: f.int32('0+'),
    filterResults: f.array('0+', {
      errorCode: f.int16('0+'),
      errorMessage: f.string('0+', { nullable: '0+', default: null }),
      matchingAcls: f.array('0+', {
        errorCode: f.int16('0+'),
        errorMessage: f.string('0+', { nullable: '0+', default: null }),
        resourceType: f.int8('0+'),
        resourceName: f.string('0+'),
        patternType: f.int8('1+', { default: 3 }),
        principal: f.string('0+'),
        host: f.string('0+'),
        operation: f.int8('0+'),
        permissionType: f.int8('0+'),
      }),
    }),
  },
})

export type DeleteAclsRequestData = Infer<typeof DeleteAclsRequest>
export type DeleteAclsResponseData = Infer<typeof DeleteAclsResponse>
