// AlterClientQuotas (key 49), v0–1; flexible from v1 (KIP-546). Per entity a list of ops (key,
// value, remove); validate_only checks without writing. Each entity is answered with its own error.
import { f, type Infer, message } from '../schema.js'

const entityFields = {
  entityType: f.string('0+'),
  entityName: f.string('0+', { nullable: '0+' }),
}

export const AlterClientQuotasRequest = message({
  apiKey: 49,
  name: 'AlterClientQuotas',
  versions: '0-1',
  flexible: '1+',
  fields: {
    entries: f.array('0+', {
      entity: f.array('0+', entityFields),
      ops: f.array('0+', {
        key: f.string('0+'),
        value: f.float64('0+'),
        remove: f.bool('0+'),
      }),
    }),
    validateOnly: f.bool('0+'),
  },
})

export const AlterClientQuotasResponse = message({
  apiKey: 49,
  name: 'AlterClientQuotas',
  versions: '0-1',
  flexible: '1+',
  fields: {
    throttleTimeMs: f.int32('0+'),
    entries: f.array('0+', {
      errorCode: f.int16('0+'),
      errorMessage: f.string('0+', { nullable: '0+' }),
      entity: f.array('0+', entityFields),
    }),
  },
})

export type AlterClientQuotasRequestData = Infer<typeof AlterClientQuotasRequest>
export type AlterClientQuotasResponseData = Infer<typeof AlterClientQuotasResponse>
