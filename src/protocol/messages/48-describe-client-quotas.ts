// DescribeClientQuotas (key 48), v0–1; flexible from v1 (KIP-546). A filter of components
// (entity type, match type 0 exact / 1 default / 2 any specified, match), strict or not; the
// answer lists each matching entity with its quota values.
import { f, type Infer, message } from '../schema.js'

export const DescribeClientQuotasRequest = message({
  apiKey: 48,
  name: 'DescribeClientQuotas',
  versions: '0-1',
  flexible: '1+',
  fields: {
    components: f.array('0+', {
      entityType: f.string('0+'),
      matchType: f.int8('0+'),
      match: f.string('0+', { nullable: '0+' }),
    }),
    strict: f.bool('0+'),
  },
})

export const DescribeClientQuotasResponse = message({
  apiKey: 48,
  name: 'DescribeClientQuotas',
  versions: '0-1',
  flexible: '1+',
  fields: {
    throttleTimeMs: f.int32('0+'),
    errorCode: f.int16('0+'),
    errorMessage: f.string('0+', { nullable: '0+' }),
    entries: f.array(
      '0+',
      {
        entity: f.array('0+', {
          entityType: f.string('0+'),
          entityName: f.string('0+', { nullable: '0+' }),
        }),
        values: f.array('0+', {
          key: f.string('0+'),
          value: f.float64('0+'),
        }),
      },
      { nullable: '0+' },
    ),
  },
})

export type DescribeClientQuotasRequestData = Infer<typeof DescribeClientQuotasRequest>
export type DescribeClientQuotasResponseData = Infer<typeof DescribeClientQuotasResponse>
