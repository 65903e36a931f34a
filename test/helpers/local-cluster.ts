// A broker's metadata-following parts over a local store, wired as broker.ts wires them — a
// single broker is a cluster of one: the controller writes the store, ReplicaSync creates, leads
// and removes the local replicas, leader election runs on the one controller. For unit tests that
// build a broker's core without its network.
import type { BrokerConfig } from '../../src/config/config.js'
import { type ClusterParts, startClusterParts } from '../../src/broker/cluster-parts.js'
import { Controller } from '../../src/cluster/controller.js'
import { localClusterBackend } from '../../src/cluster/membership.js'
import type { MetadataStore } from '../../src/ports/metadata-store.js'
import type { ReplicaManager } from '../../src/replication/replica-manager.js'
import type { Clock } from '../../src/util/clock.js'
import { silentLogger } from '../../src/util/logger.js'

export interface LocalCluster {
  controller: Controller
  parts: ClusterParts
  /** Stops the parts (not the store or the replicas: the test owns those). */
  close(): Promise<void>
}

export async function followLocalCluster(
  store: MetadataStore,
  replicas: ReplicaManager,
  config: BrokerConfig,
  clock: Clock,
  nodeId = 0,
): Promise<LocalCluster> {
  const backend = localClusterBackend(store, { nodeId, rack: null, clock })
  const live = () => backend.membership?.brokers().map((b) => ({ id: b.nodeId, rack: b.rack })) ?? [{ id: nodeId, rack: null }]
  let parts: ClusterParts | undefined
  const controller = new Controller(store, replicas, config, silentLogger, live, (topic) => parts!.sync.settled(topic))
  parts = startClusterParts(backend, config, replicas, controller, clock, silentLogger)
  await parts.sync.start()
  parts.attach(await backend.join([]))
  const started = parts
  return { controller, parts: started, close: () => started.close() }
}
