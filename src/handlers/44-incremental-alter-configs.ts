// IncrementalAlterConfigs v0–1 (KIP-339) for topics (resource type 2), brokers (4) and groups (32,
// the group configs of KIP-848/KIP-932, kept cluster-wide; config/group-config.ts): each key
// carries its operation — SET, DELETE (back to the default), APPEND / SUBTRACT (list-typed keys
// such as cleanup.policy; the current value, else the default, is the list edited). Only the keys
// named change. A broker resource is "" (the cluster-wide dynamic default) or this node's id.
// Errors per resource, as in Kafka: INVALID_REQUEST (a resource or key twice, a null value for
// anything but DELETE, an unknown operation, another broker's id, an unsupported resource type, a
// broker key that cannot change at run time), UNKNOWN_TOPIC_OR_PARTITION, INVALID_CONFIG (unknown
// key, invalid value, APPEND/SUBTRACT on a key that is not a list). validate_only changes nothing.
import { applyIncrementalOps, AlterConfigOp, type IncrementalOp } from '../config/config-dynamic.js'
import {
  IncrementalAlterConfigsRequest,
  type IncrementalAlterConfigsRequestData,
  IncrementalAlterConfigsResponse,
} from '../protocol/messages/44-incremental-alter-configs.js'
import { RESOURCE_GROUP } from './32-describe-configs.js'
import { alterEach, alterResource, checkConfigEntries } from './33-alter-configs.js'
import { defineHandler, type RequestContext } from './define.js'

type Resource = IncrementalAlterConfigsRequestData['resources'][number]

async function alterOne(ctx: RequestContext, r: Resource, validateOnly: boolean): Promise<void> {
  checkConfigEntries(r.configs, (i) => r.configs[i]!.configOperation === AlterConfigOp.DELETE)
  const ops: IncrementalOp[] = r.configs.map((c) => ({ name: c.name, op: c.configOperation, value: c.value }))
  if (r.resourceType === RESOURCE_GROUP) {
    await ctx.broker.configs.alterGroupConfigs(r.resourceName, (current) => applyIncrementalOps(current, ops, 'group'), validateOnly)
    return
  }
  await alterResource(ctx, r, (current, kind) => applyIncrementalOps(current, ops, kind), validateOnly)
}

export default defineHandler(
  IncrementalAlterConfigsRequest,
  IncrementalAlterConfigsResponse,
  { minVersion: 0, maxVersion: 1 },
  async (ctx, req) => ({
    throttleTimeMs: 0,
    responses: await alterEach(ctx, req.resources, 'incremental alter configs', (r) => alterOne(ctx, r, req.validateOnly)),
  }),
)
