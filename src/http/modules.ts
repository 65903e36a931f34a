// The parts of the HTTP surface, in the order they register their routes (server.ts).
import { registerConsole } from './console/routes.js'
import type { HttpModule } from './server.js'

export const HTTP_MODULES: readonly HttpModule[] = [registerConsole]
