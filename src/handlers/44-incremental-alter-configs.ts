// IncrementalAlterConfigs v0–1 (KIP-339) for topics (resource type 2) and brokers (4): each key
// carries its operation — SET, DELETE (back to the default), APPEND / SUBTRACT (list-typed keys
// such as cleanup.policy; the current value, else the default, is the list edited). Only the keys
// named change. A broker resource is "" (the cluster-wide dynamic default) or this node's id.
// Errors per resource, as in Kafka: INVALID_REQUEST (a resource or key twice, a null value for
// anything but DELETE, an unknown operation, another broker's id, an unsupported resource type, a
// broker key that cannot change at run time), UNKNOWN_TOPIC_OR_PARTITION, INVALID_CONFIG (unknown
// key, invalid value, APPEND/SUBTRACT on a key that is not a list). validate_only changes nothing.
import { applyIncrementalOps, AlterConfigOp, type IncrementalOp } from '../broker/config-dynamic.js'
import { KafkaError, toErrorCode } from '../protocol/errors.js'
import {
  IncrementalAlterConfigsRequest,
  type IncrementalAlterConfigsRequestData,
  IncrementalAlterConfigsResponse,
} from '../protocol/messages/44-incremental-alter-configs.js'
import { RESOURCE_BROKER, RESOURCE_TOPIC } from './32-describe-configs.js'
import { checkConfigEntries, duplicateResources } from './33-alter-configs.js'
import { defineHandler, type RequestContext } from './define.js'

type Resource = IncrementalAlterConfigsRequestData['resources'][number]

async function alterOne(ctx: RequestContext, r: Resource, validateOnly: boolean): Promise<void> {
  checkConfigEntries(r.configs, (i) => r.configs[i]!.configOperation === AlterConfigOp.DELETE)
  const ops: IncrementalOp[] = r.configs.map((c) => ({ name: c.name, op: c.configOperation, value: c.value }))
  if (r.resourceType === RESOURCE_TOPIC) {
    if (r.resourceName === '') throw new KafkaError('INVALID_REQUEST', 'Default topic resources are not allowed.')
    await ctx.broker.topics.alterTopicConfigs(r.resourceName, (current) => applyIncrementalOps(current, ops, 'topic'), validateOnly)
  } else if (r.resourceType === RESOURCE_BROKER) {
    await ctx.broker.configs.alterBrokerConfigs(r.resourceName, (current) => applyIncrementalOps(current, ops, 'broker'), validateOnly)
  } else {
    throw new KafkaError('INVALID_REQUEST', `Unsupported resource type ${r.resourceType}: only topics (2) and brokers (4)`)
  }
}

export default defineHandler(
  IncrementalAlterConfigsRequest,
  IncrementalAlterConfigsResponse,
  { minVersion: 0, maxVersion: 1 },
  async (ctx, req) => {
    const dupes = duplicateResources(req.resources)
    const responses = []
    for (const r of req.resources) {
      const base = { resourceType: r.resourceType, resourceName: r.resourceName }
      try {
        if (dupes.has(`${r.resourceType}:${r.resourceName}`)) throw new KafkaError('INVALID_REQUEST', 'Each resource must appear at most once.')
        await alterOne(ctx, r, req.validateOnly)
        responses.push({ ...base, errorCode: 0, errorMessage: null })
      } catch (err) {
        if (!(err instanceof KafkaError)) ctx.broker.logger.error('incremental alter configs failed', { resource: base, err })
        responses.push({ ...base, errorCode: toErrorCode(err), errorMessage: err instanceof Error ? err.message : String(err) })
      }
    }
    return { throttleTimeMs: 0, responses }
  },
)
