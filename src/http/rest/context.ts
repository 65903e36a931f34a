// What the REST API's route files (rest/*-routes.ts, produce.ts) share, provided by rest/index.ts:
// the HTTP server's deps, its one Kafka client and the request's URL builder. A file of its own so
// that the routes do not import the module that registers them.
import type { FastifyRequest } from 'fastify'
import type { KafkaClient } from '../../client/client.js'
import type { HttpContext } from '../server.js'
import type { Links } from './resources.js'

export interface RestContext {
  readonly deps: HttpContext
  /** The server's Kafka client, connected on first use. */
  client(): Promise<KafkaClient>
  /** URL and CRN builder for this request (its Host header). */
  links(req: FastifyRequest): Links
}
