// IncrementalAlterConfigs (key 44), v0–1; flexible from v1 (KIP-339). Each key carries its own
// operation, so only the keys named change: 0 SET, 1 DELETE (back to the default), 2 APPEND and
// 3 SUBTRACT (list-typed keys only, e.g. cleanup.policy).
import { f, type Infer, message } from '../schema.js'

/** The configOperation values of KIP-339. */
export const ConfigOperation = { SET: 0, DELETE: 1, APPEND: 2, SUBTRACT: 3 } as const

export const IncrementalAlterConfigsRequest = message({
  apiKey: 44,
  name: 'IncrementalAlterConfigs',
  versions: '0-1',
  flexible: '1+',
  fields: {
    resources: f.array('0+', {
      /** 2 = topic, 4 = broker, 8 = broker logger, … */
      resourceType: f.int8('0+'),
      /** Topic name; for a broker its node id, or "" for the cluster-wide default. */
      resourceName: f.string('0+'),
      configs: f.array('0+', {
        name: f.string('0+'),
        /** See ConfigOperation. */
        configOperation: f.int8('0+'),
        value: f.string('0+', { nullable: '0+' }),
      }),
    }),
    validateOnly: f.bool('0+', { default: false }),
  },
})

export const IncrementalAlterConfigsResponse = message({
  apiKey: 44,
  name: 'IncrementalAlterConfigs',
  versions: '0-1',
  flexible: '1+',
  fields: {
    throttleTimeMs: f.int32('0+'),
    responses: f.array('0+', {
      errorCode: f.int16('0+'),
      errorMessage: f.string('0+', { nullable: '0+' }),
      resourceType: f.int8('0+'),
      resourceName: f.string('0+'),
    }),
  },
})

export type IncrementalAlterConfigsRequestData = Infer<typeof IncrementalAlterConfigsRequest>
export type IncrementalAlterConfigsResponseData = Infer<typeof IncrementalAlterConfigsResponse>
