// A topic's configs for the REST API (rest/topic-routes.ts): every key with its value, source
// and synonyms (DescribeConfigs v1+ with includeSynonyms), as REST Proxy lists them — not only the
// overrides `tributary topic describe` shows. Changes go through IncrementalAlterConfigs
// (client/admin-topics.ts), SET for a value and DELETE to go back to the default.
//
// Rules: a Kafka error becomes a ClientError (mapped by errors.ts); a missing topic is
// UNKNOWN_TOPIC_OR_PARTITION, as Kafka answers it.
import { CONFIG_SOURCES } from '../../client/admin-topics.js'
import type { KafkaClient } from '../../client/client.js'
import { throwIfError } from '../../client/errors.js'
import { DescribeConfigsRequest, DescribeConfigsResponse } from '../../protocol/messages/32-describe-configs.js'
import type { ConfigView } from './resources.js'

const RESOURCE_TOPIC = 2
const DEFAULT_CONFIG = 5

const sourceName = (code: number): string => CONFIG_SOURCES[code] ?? 'UNKNOWN'

/** Every config of a topic (or only `keys`), sorted by name. */
export async function describeTopicConfigs(client: KafkaClient, topic: string, keys: string[] | null = null): Promise<ConfigView[]> {
  const res = await client.request(DescribeConfigsRequest, DescribeConfigsResponse, {
    resources: [{ resourceType: RESOURCE_TOPIC, resourceName: topic, configurationKeys: keys }],
    includeSynonyms: true,
    includeDocumentation: false,
  })
  const r = res.results.find((x) => x.resourceName === topic)
  if (!r) throw new Error(`DescribeConfigs: no result for ${topic}`)
  throwIfError(r.errorCode, `DescribeConfigs ${topic}`, r.errorMessage)
  return r.configs
    .map((c) => ({
      name: c.name,
      value: c.isSensitive ? null : c.value,
      isDefault: c.configSource === DEFAULT_CONFIG,
      readOnly: c.readOnly,
      sensitive: c.isSensitive,
      source: sourceName(c.configSource),
      synonyms: c.synonyms.map((s) => ({ name: s.name, value: c.isSensitive ? null : s.value, source: sourceName(s.source) })),
    }))
    .sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))
}
