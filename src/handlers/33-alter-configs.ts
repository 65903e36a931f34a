// AlterConfigs v0–2 for topics (resource type 2) and brokers (4); groups (32) are refused with
// INVALID_REQUEST, as Kafka takes group configs only incrementally. Not incremental: the configs sent
// become the resource's whole override set (keys left out return to their defaults), as in Kafka.
// A broker resource is "" (the cluster-wide dynamic default) or this broker's node id (KIP-226).
// Errors per resource, as Kafka's ConfigAdminManager and controller answer: INVALID_REQUEST (a
// resource twice, a key twice, a null value, another broker's id, an unsupported resource type, a
// broker key that cannot change at run time), UNKNOWN_TOPIC_OR_PARTITION, INVALID_CONFIG (unknown
// key or invalid value, named in the message). validate_only checks everything and changes nothing.
import { KafkaError, toErrorCode } from '../protocol/errors.js'
import { AlterConfigsRequest, type AlterConfigsRequestData, AlterConfigsResponse } from '../protocol/messages/33-alter-configs.js'
import { RESOURCE_BROKER, RESOURCE_TOPIC } from './32-describe-configs.js'
import { configRefusal, Op } from './authorize.js'
import { defineHandler, type RequestContext } from './define.js'

type Resource = AlterConfigsRequestData['resources'][number]

/** The checks every resource gets before its type is looked at (Kafka's preprocess step). */
export function checkConfigEntries(
  configs: ReadonlyArray<{ name: string; value: string | null }>,
  nullAllowed: (i: number) => boolean,
): void {
  const names = new Set<string>()
  for (const c of configs) {
    if (names.has(c.name)) throw new KafkaError('INVALID_REQUEST', 'Error due to duplicate config keys')
    names.add(c.name)
  }
  const nulls = configs.filter((c, i) => c.value === null && !nullAllowed(i)).map((c) => c.name)
  if (nulls.length > 0) throw new KafkaError('INVALID_REQUEST', `Null value not supported for : ${nulls.join(', ')}`)
}

/** Resources named more than once (type and name): each copy is refused, as Kafka does. */
export function duplicateResources(resources: ReadonlyArray<{ resourceType: number; resourceName: string }>): Set<string> {
  const seen = new Set<string>()
  const dupes = new Set<string>()
  for (const r of resources) {
    const key = `${r.resourceType}:${r.resourceName}`
    if (seen.has(key)) dupes.add(key)
    seen.add(key)
  }
  return dupes
}

/** Replaces a topic's or a broker resource's override set with change(current). */
export async function alterResource(
  ctx: RequestContext,
  r: { resourceType: number; resourceName: string },
  change: (current: Record<string, string>, kind: 'topic' | 'broker') => Record<string, string>,
  validateOnly: boolean,
): Promise<void> {
  if (r.resourceType === RESOURCE_TOPIC) {
    if (r.resourceName === '') throw new KafkaError('INVALID_REQUEST', 'Default topic resources are not allowed.')
    await ctx.broker.topics.alterTopicConfigs(r.resourceName, (current) => change(current, 'topic'), validateOnly)
  } else if (r.resourceType === RESOURCE_BROKER) {
    await ctx.broker.configs.alterBrokerConfigs(r.resourceName, (current) => change(current, 'broker'), validateOnly)
  } else {
    throw new KafkaError('INVALID_REQUEST', `Unsupported resource type ${r.resourceType}: only topics (2) and brokers (4)`)
  }
}

/** Alters each resource in turn and answers per resource; a resource named twice is refused each time. */
export async function alterEach<R extends { resourceType: number; resourceName: string }>(
  ctx: RequestContext,
  resources: readonly R[],
  what: string,
  alter: (r: R) => Promise<void>,
): Promise<Array<{ resourceType: number; resourceName: string; errorCode: number; errorMessage: string | null }>> {
  const dupes = duplicateResources(resources)
  const responses = []
  for (const r of resources) {
    const base = { resourceType: r.resourceType, resourceName: r.resourceName }
    try {
      if (dupes.has(`${r.resourceType}:${r.resourceName}`))
        throw new KafkaError('INVALID_REQUEST', 'Each resource must appear at most once.')
      // ALTER_CONFIGS on the topic, group or cluster (Kafka's KafkaApis).
      const refused = configRefusal(ctx, Op.ALTER_CONFIGS, r.resourceType, r.resourceName)
      if (refused) throw refused
      await alter(r)
      responses.push({ ...base, errorCode: 0, errorMessage: null })
    } catch (err) {
      if (!(err instanceof KafkaError)) ctx.broker.logger.error(`${what} failed`, { resource: base, err })
      responses.push({ ...base, errorCode: toErrorCode(err), errorMessage: err instanceof Error ? err.message : String(err) })
    }
  }
  return responses
}

async function alterOne(ctx: RequestContext, r: Resource, validateOnly: boolean): Promise<void> {
  checkConfigEntries(r.configs, () => false)
  const next: Record<string, string> = {}
  for (const c of r.configs) next[c.name] = c.value!
  await alterResource(ctx, r, () => next, validateOnly)
}

export default defineHandler(AlterConfigsRequest, AlterConfigsResponse, { minVersion: 0, maxVersion: 2 }, async (ctx, req) => ({
  throttleTimeMs: 0,
  responses: await alterEach(ctx, req.resources, 'alter configs', (r) => alterOne(ctx, r, req.validateOnly)),
}))
