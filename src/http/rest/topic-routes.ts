// REST Proxy v3's topic resources (rest/index.ts): topics (list, get, create, delete, PATCH of
// partitions_count), their
// partitions and replicas (ISR as REST Proxy shows it: each replica's is_in_sync and is_leader,
// the partition linking to its leader's replica), and topic configs (list, get, set one, reset
// one, alter several with configs:alter).
//
// Rules: creation, deletion and config changes are sent as Kafka's Admin client sends them
// (client/admin-topics.ts: to the controller, or to any broker for configs); Kafka's refusal
// keeps its error name (errors.ts). Statuses as REST Proxy's: 201 for a created topic, 200 for
// validate_only, 204 for a deletion or a config change.
import type { FastifyInstance } from 'fastify'
import {
  alterTopicConfigs,
  type ConfigChange,
  createPartitions,
  createTopic,
  deleteTopics,
  type TopicOutcome,
} from '../../client/admin-topics.js'
import type { KafkaClient } from '../../client/client.js'
import { ClientError } from '../../client/errors.js'
import type { TopicInfo } from '../../client/metadata.js'
import { describeTopicConfigs } from './configs.js'
import { badRequest, fromKafka, notFound } from './errors.js'
import type { RestContext } from './context.js'
import { object, optionalArray, optionalBool, optionalInt, optionalString, partitionParam, requiredString } from './input.js'
import { list, partitionData, replicaData, topicConfigData, topicData, type TopicView } from './resources.js'

type TopicParams = { cluster_id: string; topic_name: string }
type PartitionParams = TopicParams & { partition_id: string }

/** The topic's metadata; 404 40403 when it does not exist. */
async function topicInfo(client: KafkaClient, name: string): Promise<TopicInfo> {
  const md = await client.metadata([name], { refresh: true })
  const t = md.topics.get(name)
  if (!t || t.error === 'UNKNOWN_TOPIC_OR_PARTITION') throw fromKafka('UNKNOWN_TOPIC_OR_PARTITION', null)
  if (t.error && t.partitions.length === 0) throw new ClientError(t.error, `metadata of ${name}`)
  return t
}

const view = (t: TopicInfo): TopicView => ({
  name: t.name,
  internal: t.isInternal,
  partitions: t.partitions.length,
  replicationFactor: t.partitions.reduce((n, p) => Math.max(n, p.replicas.length), 0),
})

function failIfError(o: TopicOutcome): void {
  if (o.error) throw fromKafka(o.error, o.message)
}

/** The changes of a configs:alter body: [{name, value, operation: SET (default) | DELETE}]. */
function alterations(body: unknown): ConfigChange[] {
  return optionalArray(object(body), 'data').map((item, i) => {
    const o = object(item, `data[${i}]`)
    const name = requiredString(o, 'name')
    const op = (optionalString(o, 'operation') ?? 'SET').toUpperCase()
    if (op !== 'SET' && op !== 'DELETE') throw badRequest(`data[${i}].operation must be SET or DELETE`)
    return { name, op: op === 'SET' ? 'set' : 'delete', value: optionalString(o, 'value') }
  })
}

export function registerTopicRoutes(app: FastifyInstance, ctx: RestContext): void {
  app.get<{ Params: TopicParams }>('/clusters/:cluster_id/topics', async (req) => {
    const l = ctx.links(req)
    const md = await (await ctx.client()).metadata(null, { refresh: true })
    const topics = [...md.topics.values()].filter((t) => t.error === null).sort((a, b) => (a.name < b.name ? -1 : 1))
    return list(
      'KafkaTopic',
      l.url('topics'),
      topics.map((t) => topicData(l, view(t))),
    )
  })

  app.get<{ Params: TopicParams }>('/clusters/:cluster_id/topics/:topic_name', async (req) => {
    return topicData(ctx.links(req), view(await topicInfo(await ctx.client(), req.params.topic_name)))
  })

  app.post<{ Params: TopicParams }>('/clusters/:cluster_id/topics', async (req, reply) => {
    const body = object(req.body)
    const name = requiredString(body, 'topic_name')
    const configs: Record<string, string> = {}
    for (const [i, item] of optionalArray(body, 'configs').entries()) {
      const c = object(item, `configs[${i}]`)
      const value = optionalString(c, 'value')
      if (value !== null) configs[requiredString(c, 'name')] = value
    }
    const validateOnly = optionalBool(body, 'validate_only')
    const client = await ctx.client()
    const created = await createTopic(
      client,
      {
        name,
        numPartitions: optionalInt(body, 'partitions_count') ?? -1,
        replicationFactor: optionalInt(body, 'replication_factor') ?? -1,
        configs,
      },
      { validateOnly },
    )
    if (created.error === 'TOPIC_ALREADY_EXISTS') throw fromKafka(created.error, `Topic '${name}' already exists.`)
    failIfError(created)
    void reply.code(validateOnly ? 200 : 201)
    const t: TopicView =
      created.numPartitions > 0 && created.replicationFactor > 0
        ? { name, internal: false, partitions: created.numPartitions, replicationFactor: created.replicationFactor }
        : view(await topicInfo(client, name))
    return topicData(ctx.links(req), t)
  })

  app.patch<{ Params: TopicParams }>('/clusters/:cluster_id/topics/:topic_name', async (req) => {
    const count = optionalInt(object(req.body), 'partitions_count')
    if (count === null) throw badRequest('partitions_count is required and must be an integer')
    const client = await ctx.client()
    failIfError(await createPartitions(client, req.params.topic_name, count))
    return topicData(ctx.links(req), view(await topicInfo(client, req.params.topic_name)))
  })

  app.delete<{ Params: TopicParams }>('/clusters/:cluster_id/topics/:topic_name', async (req, reply) => {
    const [outcome] = await deleteTopics(await ctx.client(), [req.params.topic_name])
    failIfError(outcome!)
    return reply.code(204).send()
  })

  app.get<{ Params: TopicParams }>('/clusters/:cluster_id/topics/:topic_name/partitions', async (req) => {
    const l = ctx.links(req)
    const t = await topicInfo(await ctx.client(), req.params.topic_name)
    return list(
      'KafkaPartition',
      l.url('topics', t.name, 'partitions'),
      t.partitions.map((p) => partitionData(l, t.name, p.partition, p.leader)),
    )
  })

  app.get<{ Params: PartitionParams }>('/clusters/:cluster_id/topics/:topic_name/partitions/:partition_id', async (req) => {
    const t = await topicInfo(await ctx.client(), req.params.topic_name)
    const p = t.partitions.find((x) => x.partition === partitionParam(req.params.partition_id))
    if (!p) throw fromKafka('UNKNOWN_TOPIC_OR_PARTITION', null)
    return partitionData(ctx.links(req), t.name, p.partition, p.leader)
  })

  app.get<{ Params: PartitionParams }>('/clusters/:cluster_id/topics/:topic_name/partitions/:partition_id/replicas', async (req) => {
    const l = ctx.links(req)
    const t = await topicInfo(await ctx.client(), req.params.topic_name)
    const p = t.partitions.find((x) => x.partition === partitionParam(req.params.partition_id))
    if (!p) throw fromKafka('UNKNOWN_TOPIC_OR_PARTITION', null)
    return list(
      'KafkaReplica',
      l.url('topics', t.name, 'partitions', p.partition, 'replicas'),
      p.replicas.map((b) => replicaData(l, t.name, p.partition, b, b === p.leader, p.isr.includes(b))),
    )
  })

  app.get<{ Params: PartitionParams & { broker_id: string } }>(
    '/clusters/:cluster_id/topics/:topic_name/partitions/:partition_id/replicas/:broker_id',
    async (req) => {
      const t = await topicInfo(await ctx.client(), req.params.topic_name)
      const p = t.partitions.find((x) => x.partition === partitionParam(req.params.partition_id))
      if (!p) throw fromKafka('UNKNOWN_TOPIC_OR_PARTITION', null)
      const b = p.replicas.find((x) => String(x) === req.params.broker_id)
      if (b === undefined) throw notFound(`Replica ${req.params.broker_id} cannot be found.`)
      return replicaData(ctx.links(req), t.name, p.partition, b, b === p.leader, p.isr.includes(b))
    },
  )

  app.get<{ Params: TopicParams }>('/clusters/:cluster_id/topics/:topic_name/configs', async (req) => {
    const l = ctx.links(req)
    const topic = req.params.topic_name
    const configs = await describeTopicConfigs(await ctx.client(), topic)
    return list(
      'KafkaTopicConfig',
      l.url('topics', topic, 'configs'),
      configs.map((c) => topicConfigData(l, topic, c)),
    )
  })

  app.get<{ Params: TopicParams & { name: string } }>('/clusters/:cluster_id/topics/:topic_name/configs/:name', async (req) => {
    const { topic_name: topic, name } = req.params
    const c = (await describeTopicConfigs(await ctx.client(), topic)).find((x) => x.name === name)
    if (!c) throw notFound(`Config ${name} cannot be found for topic ${topic}.`)
    return topicConfigData(ctx.links(req), topic, c)
  })

  app.put<{ Params: TopicParams & { name: string } }>('/clusters/:cluster_id/topics/:topic_name/configs/:name', async (req, reply) => {
    const value = optionalString(object(req.body), 'value')
    failIfError(await alterTopicConfigs(await ctx.client(), req.params.topic_name, [{ name: req.params.name, op: 'set', value }]))
    return reply.code(204).send()
  })

  app.delete<{ Params: TopicParams & { name: string } }>('/clusters/:cluster_id/topics/:topic_name/configs/:name', async (req, reply) => {
    failIfError(await alterTopicConfigs(await ctx.client(), req.params.topic_name, [{ name: req.params.name, op: 'delete', value: null }]))
    return reply.code(204).send()
  })

  app.post<{ Params: TopicParams }>('/clusters/:cluster_id/topics/:topic_name/configs::alter', async (req, reply) => {
    const changes = alterations(req.body)
    const validateOnly = optionalBool(object(req.body), 'validate_only')
    failIfError(await alterTopicConfigs(await ctx.client(), req.params.topic_name, changes, { validateOnly }))
    return reply.code(204).send()
  })
}
