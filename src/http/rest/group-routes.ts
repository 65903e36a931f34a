// REST Proxy v3's consumer-group resources (rest/index.ts): groups (list, get), their consumers
// (list, get) with their assignments, each partition's lag (lags, lags/{topic}/partitions/{n})
// and the group's lag summary. A group's lag on a partition is the log end offset (the high
// watermark, ListOffsets latest) minus the group's committed offset, never below 0; only
// partitions the group committed an offset for are listed, as REST Proxy lists them. The
// consumer of a partition is the member it is assigned to (empty strings when none is).
//
// Rules: requests go to the group's coordinator (client/admin-groups.ts, admin-group-types.ts);
// classic groups are described with DescribeGroups, KIP-848 consumer groups (type CONSUMER) with
// ConsumerGroupDescribe; share groups are not consumer groups and are left out; a group the
// coordinator does not know is 404.
import type { FastifyInstance } from 'fastify'
import { describeGroup, fetchCommittedOffsets, type GroupDescription, listGroups, listOffsetsOf } from '../../client/admin-groups.js'
import { describeConsumerGroup, groupTypeOf } from '../../client/admin-group-types.js'
import type { KafkaClient } from '../../client/client.js'
import { fromKafka, notFound } from './errors.js'
import type { RestContext } from './context.js'
import { partitionParam } from './input.js'
import {
  assignmentData,
  type ConsumerView,
  consumerData,
  consumerGroupData,
  consumerLagData,
  type GroupView,
  type LagView,
  lagSummaryData,
  list,
} from './resources.js'

type GroupParams = { cluster_id: string; consumer_group_id: string }
type ConsumerParams = GroupParams & { consumer_id: string }

/** Kafka's group state names (Stable, PreparingRebalance, …) as REST Proxy spells them (STABLE, PREPARING_REBALANCE). */
export function restState(state: string): string {
  return state === '' ? 'UNKNOWN' : state.replace(/([a-z])([A-Z])/g, '$1_$2').toUpperCase()
}

/** A KIP-848 consumer group in the shape of a classic one's description (members with their assignments). */
async function describeModern(client: KafkaClient, id: string): Promise<GroupDescription> {
  const d = await describeConsumerGroup(client, id)
  if (!d) throw notFound(`Consumer group ${id} cannot be found.`)
  return {
    groupId: id,
    state: d.state,
    protocolType: 'consumer',
    protocol: d.assignor,
    coordinator: d.coordinator,
    members: d.members.map((m) => ({
      memberId: m.memberId,
      groupInstanceId: m.instanceId,
      clientId: m.clientId,
      clientHost: m.clientHost,
      assignment: m.assignment,
    })),
  }
}

/**
 * The group, described with the API of its type (DescribeGroups for classic groups,
 * ConsumerGroupDescribe for KIP-848 ones: Kafka answers the other with GROUP_ID_NOT_FOUND).
 * `type` is the group's ListGroups type when the caller has it.
 */
async function group(client: KafkaClient, id: string, type?: string | null): Promise<{ view: GroupView; description: GroupDescription }> {
  const t = type === undefined ? await groupTypeOf(client, id) : type
  if (t === null || t === 'share') throw notFound(`Consumer group ${id} cannot be found.`)
  const d = t === 'consumer' ? await describeModern(client, id) : await describeGroup(client, id)
  if (d.state === 'Dead') throw notFound(`Consumer group ${id} cannot be found.`)
  return {
    description: d,
    view: {
      groupId: id,
      simple: d.protocolType === '',
      assignor: d.protocol,
      state: restState(d.state),
      type: t.toUpperCase(),
      coordinator: d.coordinator,
    },
  }
}

const consumerOf = (m: GroupDescription['members'][number]): ConsumerView => ({
  consumerId: m.memberId,
  instanceId: m.groupInstanceId,
  clientId: m.clientId,
})

function member(d: GroupDescription, consumerId: string): GroupDescription['members'][number] {
  const m = d.members.find((x) => x.memberId === consumerId)
  if (!m) throw notFound(`Consumer ${consumerId} cannot be found in consumer group ${d.groupId}.`)
  return m
}

/** The group's lag on every partition it committed an offset for, sorted by topic and partition. */
async function lags(client: KafkaClient, d: GroupDescription): Promise<LagView[]> {
  const committed = await fetchCommittedOffsets(client, d.groupId)
  const ends = await listOffsetsOf(client, committed, -1)
  const owners = new Map<string, ConsumerView>()
  for (const m of d.members) {
    for (const a of m.assignment ?? []) for (const p of a.partitions) owners.set(`${a.topic}\u0000${p}`, consumerOf(m))
  }
  const none: ConsumerView = { consumerId: '', instanceId: null, clientId: '' }
  return committed
    .filter((c) => ends.get(c.topic)?.has(c.partition))
    .map((c) => {
      const end = ends.get(c.topic)!.get(c.partition)!
      return {
        ...(owners.get(`${c.topic}\u0000${c.partition}`) ?? none),
        topic: c.topic,
        partition: c.partition,
        currentOffset: c.offset,
        logEndOffset: end,
        lag: Math.max(0, end - c.offset),
      }
    })
}

export function registerGroupRoutes(app: FastifyInstance, ctx: RestContext): void {
  app.get<{ Params: GroupParams }>('/clusters/:cluster_id/consumer-groups', async (req) => {
    const l = ctx.links(req)
    const client = await ctx.client()
    const listed = (await listGroups(client)).filter((g) => g.groupType !== 'share')
    const data = await Promise.all(
      listed.map(async (g) => consumerGroupData(l, (await group(client, g.groupId, g.groupType ?? 'classic')).view)),
    )
    return list('KafkaConsumerGroup', l.url('consumer-groups'), data)
  })

  app.get<{ Params: GroupParams }>('/clusters/:cluster_id/consumer-groups/:consumer_group_id', async (req) => {
    return consumerGroupData(ctx.links(req), (await group(await ctx.client(), req.params.consumer_group_id)).view)
  })

  app.get<{ Params: GroupParams }>('/clusters/:cluster_id/consumer-groups/:consumer_group_id/consumers', async (req) => {
    const l = ctx.links(req)
    const id = req.params.consumer_group_id
    const { description } = await group(await ctx.client(), id)
    return list(
      'KafkaConsumer',
      l.url('consumer-groups', id, 'consumers'),
      description.members.map((m) => consumerData(l, id, consumerOf(m))),
    )
  })

  app.get<{ Params: ConsumerParams }>('/clusters/:cluster_id/consumer-groups/:consumer_group_id/consumers/:consumer_id', async (req) => {
    const { description } = await group(await ctx.client(), req.params.consumer_group_id)
    return consumerData(ctx.links(req), req.params.consumer_group_id, consumerOf(member(description, req.params.consumer_id)))
  })

  app.get<{ Params: ConsumerParams }>(
    '/clusters/:cluster_id/consumer-groups/:consumer_group_id/consumers/:consumer_id/assignments',
    async (req) => {
      const l = ctx.links(req)
      const { consumer_group_id: id, consumer_id: consumerId } = req.params
      const { description } = await group(await ctx.client(), id)
      const m = member(description, consumerId)
      const data = (m.assignment ?? []).flatMap((a) => a.partitions.map((p) => assignmentData(l, id, consumerId, a.topic, p)))
      return list('KafkaConsumerAssignment', l.url('consumer-groups', id, 'consumers', consumerId, 'assignments'), data)
    },
  )

  app.get<{ Params: GroupParams }>('/clusters/:cluster_id/consumer-groups/:consumer_group_id/lags', async (req) => {
    const l = ctx.links(req)
    const id = req.params.consumer_group_id
    const client = await ctx.client()
    const all = await lags(client, (await group(client, id)).description)
    return list(
      'KafkaConsumerLag',
      l.url('consumer-groups', id, 'lags'),
      all.map((x) => consumerLagData(l, id, x)),
    )
  })

  app.get<{ Params: GroupParams & { topic_name: string; partition_id: string } }>(
    '/clusters/:cluster_id/consumer-groups/:consumer_group_id/lags/:topic_name/partitions/:partition_id',
    async (req) => {
      const id = req.params.consumer_group_id
      const partition = partitionParam(req.params.partition_id)
      const client = await ctx.client()
      const all = await lags(client, (await group(client, id)).description)
      const x = all.find((y) => y.topic === req.params.topic_name && y.partition === partition)
      if (!x) throw fromKafka('UNKNOWN_TOPIC_OR_PARTITION', null)
      return consumerLagData(ctx.links(req), id, x)
    },
  )

  app.get<{ Params: GroupParams }>('/clusters/:cluster_id/consumer-groups/:consumer_group_id/lag-summary', async (req) => {
    const id = req.params.consumer_group_id
    const client = await ctx.client()
    return lagSummaryData(ctx.links(req), id, await lags(client, (await group(client, id)).description))
  })
}
