// The REST API under /v3 (server.ts mounts it), in Confluent REST Proxy v3's resources and JSON
// shapes so that scripts and docs written for REST Proxy apply: clusters and brokers
// (cluster-routes.ts), topics, partitions, replicas and topic configs (topic-routes.ts),
// consumer groups with their consumers and lags (group-routes.ts), and producing records
// (produce.ts).
//
// Rules:
// - Every route reaches Kafka through the requesting user's pooled KafkaClient (auth.ts: one per
//   user, or one anonymous one), connected to this broker's listener for HTTP, so that its ACLs
//   and quotas apply and a cluster is served right (requests go to the controller, coordinator or leader, as Kafka's
//   clients send them); the cluster id comes from the broker's services.
// - A path under /v3/clusters/<id> with another cluster's id answers 404 "Cluster <id> cannot be
//   found." before anything else runs.
// - Errors are REST Proxy's bodies (errors.ts); a route never lets an exception out unmapped.
import type { FastifyInstance } from 'fastify'
import type { HttpModule } from '../server.js'
import { registerClusterRoutes } from './cluster-routes.js'
import type { RestContext } from './context.js'
import { notFound, toRestError } from './errors.js'
import { registerGroupRoutes } from './group-routes.js'
import { ProducerPool, registerProduceRoutes } from './produce.js'
import { Links } from './resources.js'
import { registerTopicRoutes } from './topic-routes.js'

export const restModule: HttpModule = (app, deps) => {
  const ctx: RestContext = {
    deps,
    client: () => deps.clients.get(`tributary-rest-${deps.services.nodeId}`),
    links(req) {
      const host = req.headers.host ?? deps.bootstrap()
      return new Links(`${req.protocol}://${host}`, deps.services.clusterId)
    },
  }
  const producers = new ProducerPool(ctx)
  app.addHook('onClose', async () => {
    await producers.close()
    deps.logger.debug('REST producers closed')
  })
  app.register(
    async (v3: FastifyInstance) => {
      v3.setErrorHandler((err, _req, reply) => {
        const e = toRestError(err)
        if (e.status >= 500) deps.logger.warn('REST request failed', { err })
        void reply.code(e.status).send(e.toJSON())
      })
      v3.addHook('preHandler', async (req) => {
        const id = (req.params as { cluster_id?: string }).cluster_id
        if (id !== undefined && id !== deps.services.clusterId) throw notFound(`Cluster ${id} cannot be found.`)
      })
      registerClusterRoutes(v3, ctx)
      registerTopicRoutes(v3, ctx)
      registerGroupRoutes(v3, ctx)
      await v3.register(async (records: FastifyInstance) => registerProduceRoutes(records, ctx, producers))
    },
    { prefix: '/v3' },
  )
}
