// The parts of the HTTP surface, in the order they register their routes (server.ts). Metrics
// first: its hooks count the requests of every route registered after it.
import { registerConsole } from './console/routes.js'
import { metricsModule } from './metrics/metrics-module.js'
import { pushModule } from './push/index.js'
import { restModule } from './rest/index.js'
import type { HttpModule } from './server.js'

export const HTTP_MODULES: readonly HttpModule[] = [metricsModule, restModule, pushModule, registerConsole]
