// CreateAcls (key 30), v1–3 (Kafka 4.4); flexible from v2. v1 added the resource pattern type
// (KIP-290). One result per creation, in request order.
import { f, type Infer, message } from '../schema.js'

export const CreateAclsRequest = message({
  apiKey: 30,
  name: 'CreateAcls',
  versions: '1-3',
  flexible: '2+',
  fields: {
    creations: f.array('0+', {
      resourceType: f.int8('0+'),
      resourceName: f.string('0+'),
      resourcePatternType: f.int8('1+', { default: 3 }),
      principal: f.string('0+'),
      host: f.string('0+'),
      operation: f.int8('0+'),
      permissionType: f.int8('0+'),
    }),
  },
})

export const CreateAclsResponse = message({
  apiKey: 30,
  name: 'CreateAcls',
  versions: '1-3',
  flexible: '2+',
  fields: {
    throttleTimeMs: f.int32('0+'),
    results: f.array('0+', {
      errorCode: f.int16('0+'),
      errorMessage: f.string('0+', { nullable: '0+', default: null }),
    }),
  },
})

export type CreateAclsRequestData = Infer<typeof CreateAclsRequest>
export type CreateAclsResponseData = Infer<typeof CreateAclsResponse>
