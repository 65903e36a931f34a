// GET /metrics: the broker's metrics in Prometheus' text format (prom-client), for Prometheus to
// scrape and docs/grafana/tributary-dashboard.json to chart. The counters are fed by the broker's
// layers through ports/metrics.ts (broker/broker.ts creates them when the HTTP listener is on); the
// partition and group gauges are read from the services at each scrape (scrape-gauges.ts).
//
// Rules: one Registry per broker (PromBrokerMetrics), shared by its HTTP listeners; a broker
// started without them (an app built on bare services, as in unit tests) gets its own, whose
// Kafka counters stay at zero. The module registers first (http/modules.ts) so that its request
// hooks see every route.
import type { HttpModule } from '../server.js'
import { PromBrokerMetrics } from './broker-metrics.js'
import { instrumentHttp } from './http-metrics.js'
import { ScrapeGauges } from './scrape-gauges.js'

interface Scraped {
  metrics: PromBrokerMetrics
  gauges: ScrapeGauges
}

const scraped = new WeakMap<PromBrokerMetrics, Scraped>()

export const metricsModule: HttpModule = (app, deps) => {
  const metrics = PromBrokerMetrics.of(deps.services) ?? new PromBrokerMetrics().attach(deps.services)
  let s = scraped.get(metrics)
  if (!s) {
    s = { metrics, gauges: new ScrapeGauges(metrics.registry) }
    scraped.set(metrics, s)
  }
  const { gauges } = s
  instrumentHttp(app, metrics.registry, deps.logger)
  app.get('/metrics', async (_req, reply) => {
    gauges.refresh(deps.services)
    metrics.forgetTopics((topic) => deps.services.topics.get(topic) !== undefined)
    const text = await metrics.exposition()
    return reply.type(metrics.registry.contentType).send(text)
  })
}
