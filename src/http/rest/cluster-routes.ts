// REST Proxy v3's cluster and broker resources (rest/index.ts): GET /v3/clusters (this one
// cluster), /v3/clusters/{cluster_id}, .../brokers and .../brokers/{broker_id}. The brokers and
// the controller are the cluster's as Kafka's DescribeCluster gives them to a client, so every
// broker of a cluster answers the same.
//
// Rules: a broker id that is not a number, or not in the cluster, is 404.
import type { FastifyInstance } from 'fastify'
import { describeCluster } from '../../client/admin-topics.js'
import { notFound } from './errors.js'
import type { RestContext } from './context.js'
import { brokerData, clusterData, list } from './resources.js'

type ClusterParams = { cluster_id: string }

export function registerClusterRoutes(app: FastifyInstance, ctx: RestContext): void {
  app.get('/clusters', async (req) => {
    const l = ctx.links(req)
    const c = await describeCluster(await ctx.client())
    return list('KafkaCluster', `${l.base}/v3/clusters`, [clusterData(l, c.controllerId)])
  })

  app.get<{ Params: ClusterParams }>('/clusters/:cluster_id', async (req) => {
    const c = await describeCluster(await ctx.client())
    return clusterData(ctx.links(req), c.controllerId)
  })

  app.get<{ Params: ClusterParams }>('/clusters/:cluster_id/brokers', async (req) => {
    const l = ctx.links(req)
    const c = await describeCluster(await ctx.client())
    return list(
      'KafkaBroker',
      l.url('brokers'),
      c.brokers.map((b) => brokerData(l, b)),
    )
  })

  app.get<{ Params: ClusterParams & { broker_id: string } }>('/clusters/:cluster_id/brokers/:broker_id', async (req) => {
    const c = await describeCluster(await ctx.client())
    const b = c.brokers.find((x) => String(x.nodeId) === req.params.broker_id)
    if (!b) throw notFound(`Broker ${req.params.broker_id} cannot be found.`)
    return brokerData(ctx.links(req), b)
  })
}
