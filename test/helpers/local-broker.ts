// What unit tests of handlers and services share: a broker's core over real storage in a directory, wired as
// broker.ts wires it (store, dynamic configs, logs, replicas, and the cluster-of-one parts), a
// connection to stand for the client's, and a call that takes a request through its codec, the
// handler and back through the response's codec at one version; and `__consumer_offsets` over it.
import { ANONYMOUS } from '../../src/network/principal.js'
import assert from 'node:assert/strict'
import { BrokerConfigService } from '../../src/broker/config-service.js'
import { logConfigOf } from '../../src/cluster/controller.js'
import { OffsetsTopicPersistence, type OffsetsTopicOptions } from '../../src/coordinator/group/offsets-topic.js'
import type { Controller } from '../../src/cluster/controller.js'
import { LocalMetadataStore } from '../../src/cluster/local-store.js'
import { type BrokerConfig, defaultBrokerConfig } from '../../src/config/config.js'
import { topicDefaults } from '../../src/config/topic-config.js'
import type { Handler, RequestContext } from '../../src/handlers/define.js'
import type { ConnectionInfo } from '../../src/network/types.js'
import type { BrokerServices } from '../../src/ports/broker-services.js'
import type { Encodable } from '../../src/protocol/schema.js'
import { ReplicaManager, type ReplicaManagerOptions } from '../../src/replication/replica-manager.js'
import type { ReplicaSync } from '../../src/replication/replica-sync.js'
import { nodeFs } from '../../src/storage/fs.js'
import { LogManager } from '../../src/storage/log-manager.js'
import { ManualClock } from '../../src/util/clock.js'
import { silentLogger } from '../../src/util/logger.js'
import { followLocalCluster } from './local-cluster.js'

export interface LocalBroker {
  dir: string
  clock: ManualClock
  store: LocalMetadataStore
  configs: BrokerConfigService
  logs: LogManager
  replicas: ReplicaManager
  controller: Controller
  sync: ReplicaSync
  /** Stops the cluster parts, closes the replicas and the store (the directory stays). */
  close(): Promise<void>
}

export async function openLocalBroker(
  dir: string,
  opts: { config?: BrokerConfig; clock?: ManualClock; replicaOptions?: ReplicaManagerOptions } = {},
): Promise<LocalBroker> {
  const clock = opts.clock ?? new ManualClock()
  const store = await LocalMetadataStore.open({ fs: nodeFs, dataDir: dir, clock })
  const configs = new BrokerConfigService(opts.config ?? defaultBrokerConfig(), store, silentLogger)
  const logs = await LogManager.open({
    fs: nodeFs,
    clock,
    logDir: dir,
    config: logConfigOf(topicDefaults(configs.config)),
    logger: silentLogger,
  })
  const replicas = new ReplicaManager(logs, clock, silentLogger, opts.replicaOptions)
  replicas.loadExisting()
  const cluster = await followLocalCluster(store, replicas, configs.config, clock)
  configs.onChange((c) => cluster.controller.updateBrokerConfig(c))
  return {
    dir,
    clock,
    store,
    configs,
    logs,
    replicas,
    controller: cluster.controller,
    sync: cluster.parts.sync,
    close: async () => {
      await cluster.close()
      await replicas.close()
      await store.close()
    },
  }
}

/** A client connection that never closes. */
/**
 * `__consumer_offsets` over a broker's controller and replicas, with Kafka's defaults (50
 * partitions, replication factor 1, 100 MiB segments), on `clock`.
 */
export function offsetsTopicOn(
  node: Pick<LocalBroker, 'controller' | 'replicas'>,
  clock: ManualClock,
  extra: Partial<OffsetsTopicOptions> = {},
): OffsetsTopicPersistence {
  return new OffsetsTopicPersistence({
    topics: node.controller,
    replicas: node.replicas,
    numPartitions: 50,
    replicationFactor: 1,
    segmentBytes: 104857600,
    clock,
    logger: silentLogger,
    ...extra,
  })
}

/** A PLAINTEXT connection of User:ANONYMOUS, for handler tests (fields may be overridden). */
export function testConn(overrides: Partial<ConnectionInfo> = {}): ConnectionInfo {
  return {
    id: 1,
    remoteAddress: '127.0.0.1',
    remotePort: 1,
    listenerName: 'PLAINTEXT',
    securityProtocol: 'PLAINTEXT',
    principal: ANONYMOUS,
    authenticated: true,
    closed: new AbortController().signal,
    ...overrides,
  }
}

/** The request through its codec at `version`, the handler, and the answer through the response codec. */
export async function callHandler<Req, Res>(
  broker: BrokerServices,
  handler: Handler<Req, Res>,
  version: number,
  req: Encodable<Req>,
): Promise<Res> {
  const decoded = handler.request.decode(version, handler.request.encode(version, req))
  const ctx: RequestContext = {
    header: { apiKey: handler.request.apiKey, apiVersion: version, correlationId: 1, clientId: 't', bodyOffset: 0 },
    apiVersion: version,
    conn: testConn(),
    broker,
    apis: [],
  }
  const res = await handler.handle(ctx, decoded)
  assert.ok(res !== null)
  return handler.response.decode(version, handler.response.encode(version, res))
}
