// AlterConfigs (key 33), v0–2; flexible from v2. v1 is v0 with throttling after the response.
// Not incremental: the configs sent for a resource replace its whole set of overrides (a key left
// out returns to its default), which is why tools prefer IncrementalAlterConfigs (key 44).
import { f, type Infer, message } from '../schema.js'

export const AlterConfigsRequest = message({
  apiKey: 33,
  name: 'AlterConfigs',
  versions: '0-2',
  flexible: '2+',
  fields: {
    resources: f.array('0+', {
      /** 2 = topic, 4 = broker, 8 = broker logger, … */
      resourceType: f.int8('0+'),
      /** Topic name; for a broker its node id, or "" for the cluster-wide default. */
      resourceName: f.string('0+'),
      configs: f.array('0+', {
        name: f.string('0+'),
        value: f.string('0+', { nullable: '0+' }),
      }),
    }),
    validateOnly: f.bool('0+', { default: false }),
  },
})

export const AlterConfigsResponse = message({
  apiKey: 33,
  name: 'AlterConfigs',
  versions: '0-2',
  flexible: '2+',
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

export type AlterConfigsRequestData = Infer<typeof AlterConfigsRequest>
export type AlterConfigsResponseData = Infer<typeof AlterConfigsResponse>
