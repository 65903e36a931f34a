// DescribeConfigs (key 32), v1–4; flexible from v4. v1 adds synonyms and the config source
// (replacing v0's isDefault flag); v3 adds the config's type and documentation. Version 0 is not
// served (Kafka 4 dropped it too), but isDefault is declared for completeness.
import { f, type Infer, message, T } from '../schema.js'

export const DescribeConfigsRequest = message({
  apiKey: 32,
  name: 'DescribeConfigs',
  versions: '1-4',
  flexible: '4+',
  fields: {
    resources: f.array('0+', {
      /** 2 = topic, 4 = broker, 8 = broker logger, … */
      resourceType: f.int8('0+'),
      resourceName: f.string('0+'),
      /** null lists every key. */
      configurationKeys: f.arrayOf('0+', T.string, { nullable: '0+' }),
    }),
    includeSynonyms: f.bool('1+', { default: false }),
    includeDocumentation: f.bool('3+', { default: false }),
  },
})

export const DescribeConfigsResponse = message({
  apiKey: 32,
  name: 'DescribeConfigs',
  versions: '1-4',
  flexible: '4+',
  fields: {
    throttleTimeMs: f.int32('0+'),
    results: f.array('0+', {
      errorCode: f.int16('0+'),
      errorMessage: f.string('0+', { nullable: '0+' }),
      resourceType: f.int8('0+'),
      resourceName: f.string('0+'),
      configs: f.array('0+', {
        name: f.string('0+'),
        value: f.string('0+', { nullable: '0+' }),
        readOnly: f.bool('0+'),
        isDefault: f.bool('0'),
        /** -1 is a placeholder where a version lacks the field. */
        configSource: f.int8('1+', { default: -1 }),
        isSensitive: f.bool('0+'),
        synonyms: f.array('1+', {
          name: f.string('1+'),
          value: f.string('1+', { nullable: '0+' }),
          source: f.int8('1+'),
        }),
        configType: f.int8('3+', { default: 0 }),
        documentation: f.string('3+', { nullable: '0+' }),
      }),
    }),
  },
})

export type DescribeConfigsRequestData = Infer<typeof DescribeConfigsRequest>
export type DescribeConfigsResponseData = Infer<typeof DescribeConfigsResponse>
