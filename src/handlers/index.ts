// Every handler the broker serves. Adding an API = adding its file here; ApiVersions follows.
import produce from './00-produce.js'
import fetch from './01-fetch.js'
import listOffsets from './02-list-offsets.js'
import metadata from './03-metadata.js'
import apiVersions from './18-api-versions.js'
import createTopics from './19-create-topics.js'
import deleteTopics from './20-delete-topics.js'
import initProducerId from './22-init-producer-id.js'
import describeConfigs from './32-describe-configs.js'
import describeCluster from './60-describe-cluster.js'
import type { Handler } from './define.js'
import { HandlerRegistry } from './registry.js'

export const allHandlers: Handler[] = [
  produce,
  fetch,
  listOffsets,
  metadata,
  apiVersions,
  createTopics,
  deleteTopics,
  initProducerId,
  describeConfigs,
  describeCluster,
]

export function createRegistry(): HandlerRegistry {
  return new HandlerRegistry(allHandlers)
}
