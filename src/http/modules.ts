// The parts of the HTTP surface, in the order they register their routes (server.ts).
import { pushModule } from './push/index.js'
import type { HttpModule } from './server.js'

export const HTTP_MODULES: readonly HttpModule[] = [pushModule]
