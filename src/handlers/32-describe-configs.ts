// DescribeConfigs v1–4 for topics (resource type 2), this broker (4) and groups (32: the group
// configs of KIP-848/KIP-932, config/group-config.ts — every key, those the group sets with source
// GROUP_CONFIG, the others with the broker's default; any group id, known or not). Every entry carries its
// source (topic override, dynamic broker config, dynamic cluster-wide default, static broker config
// or default) and, when asked, its synonyms (the broker keys a topic config falls back to, level by
// level) and documentation. Broker resource "" is the cluster-wide dynamic default: as in Kafka it
// lists only the keys set at that level.
// Errors per resource: UNKNOWN_TOPIC_OR_PARTITION, INVALID_REQUEST (another broker's id, or a
// resource type not served).
import { ErrorCode } from '../protocol/errors.js'
import { DescribeConfigsRequest, DescribeConfigsResponse } from '../protocol/messages/32-describe-configs.js'
import { configRefusal, Op } from './authorize.js'
import { defineHandler } from './define.js'
import type { ConfigEntry } from '../ports/configs.js'

export const RESOURCE_TOPIC = 2
export const RESOURCE_BROKER = 4
export const RESOURCE_GROUP = 32

export default defineHandler(DescribeConfigsRequest, DescribeConfigsResponse, { minVersion: 1, maxVersion: 4 }, (ctx, req) => {
  const { topics, configs, nodeId } = ctx.broker
  const results = req.resources.map((r) => {
    const base = { resourceType: r.resourceType, resourceName: r.resourceName }
    // DESCRIBE_CONFIGS on the topic, group or cluster (Kafka's ConfigHelper).
    const refused = configRefusal(ctx, Op.DESCRIBE_CONFIGS, r.resourceType, r.resourceName)
    if (refused) return { ...base, errorCode: refused.code, errorMessage: null, configs: [] }
    let entries: ConfigEntry[]
    if (r.resourceType === RESOURCE_TOPIC) {
      const topic = topics.get(r.resourceName)
      if (!topic) {
        return {
          ...base,
          errorCode: ErrorCode.UNKNOWN_TOPIC_OR_PARTITION.code,
          errorMessage: `Topic ${r.resourceName} does not exist`,
          configs: [],
        }
      }
      entries = configs.describeTopic(topic, r.configurationKeys)
    } else if (r.resourceType === RESOURCE_BROKER) {
      if (r.resourceName !== '' && r.resourceName !== String(nodeId)) {
        return { ...base, errorCode: ErrorCode.INVALID_REQUEST.code, errorMessage: `Unexpected broker id ${r.resourceName}`, configs: [] }
      }
      entries = r.resourceName === '' ? configs.describeBrokerDefaults(r.configurationKeys) : configs.describeBroker(r.configurationKeys)
    } else if (r.resourceType === RESOURCE_GROUP && r.resourceName !== '') {
      entries = configs.describeGroup(r.resourceName, r.configurationKeys)
    } else {
      return {
        ...base,
        errorCode: ErrorCode.INVALID_REQUEST.code,
        errorMessage: `Unsupported resource type ${r.resourceType}`,
        configs: [],
      }
    }
    return {
      ...base,
      errorCode: 0,
      errorMessage: null,
      configs: entries.map((c) => ({
        name: c.name,
        value: c.isSensitive ? null : c.value,
        readOnly: c.readOnly,
        configSource: c.source,
        isSensitive: c.isSensitive,
        synonyms: req.includeSynonyms ? c.synonyms : [],
        configType: c.type,
        documentation: req.includeDocumentation ? c.documentation : null,
      })),
    }
  })
  return { throttleTimeMs: 0, results }
})
