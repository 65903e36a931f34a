// What a broker needs to be part of an etcd-coordinated cluster (docs/architecture.md §1.5), in one place so
// the composition root loads the etcd client (≈0.3 s of gRPC and protobuf set-up) only when
// etcd.endpoints is set:
//   1. connect, with a deadline: an unreachable etcd stops the start with a message naming
//      etcd.endpoints (the client would otherwise retry quietly);
//   2. open the EtcdMetadataStore (creates the cluster id on the cluster's first start);
//   3. bind the data dir to the cluster, as Kafka does with meta.properties: a dir that holds
//      another cluster's id (or another node id) is refused, because start-up reconciliation
//      removes logs whose topics the store does not know — pointed at the wrong etcd prefix, a
//      broker would otherwise delete its data; a new dir gets meta.properties written;
//   4. join(): once the listeners are bound (ports known), register under a lease and enter the
//      controller election (EtcdMembership).
import { Etcd3 } from 'etcd3'
import { writeFileAtomic } from '../storage/checkpoint-file.js'
import type { Fs } from '../storage/fs.js'
import type { Clock } from '../util/clock.js'
import type { Logger } from '../util/logger.js'
import { EtcdMembership } from './etcd-membership.js'
import { EtcdMetadataError, EtcdMetadataStore } from './etcd-store.js'
import { META_PROPERTIES, MetadataFileError, metaPropertiesText, readMetaProperties } from './local-store.js'
import type { ClusterBackend, RegisteredEndpoint } from './membership.js'

const CONNECT_TIMEOUT_MS = 10_000
const WATCH_RETRY_MAX_MS = 2000

export interface EtcdClusterOptions {
  endpoints: readonly string[]
  prefix: string
  sessionTimeoutMs: number
  nodeId: number
  rack: string | null
  /** The configured cluster.id, if any. */
  clusterId: string | null
  fs: Fs
  dataDir: string
  clock: Clock
  logger: Logger
  connectTimeoutMs?: number
  /** TLS to etcd (the tributary.etcd.ssl.* files, read). */
  tls?: EtcdTls
}

/** PEM texts for TLS to etcd: the CA to trust (default: Node's bundled ones), a client certificate and key. */
export interface EtcdTls {
  ca?: Buffer
  cert?: Buffer
  key?: Buffer
}

/** join() registers under a lease and enters the controller election; close() revokes the lease first. */
export interface EtcdCluster extends ClusterBackend {
  readonly store: EtcdMetadataStore
  readonly membership: EtcdMembership | undefined
  join(endpoints: RegisteredEndpoint[]): Promise<EtcdMembership>
}

export async function openEtcdCluster(opts: EtcdClusterOptions): Promise<EtcdCluster> {
  const client = await connectEtcd(opts.endpoints, opts.connectTimeoutMs ?? CONNECT_TIMEOUT_MS, opts.tls)
  let store: EtcdMetadataStore | undefined
  try {
    store = await EtcdMetadataStore.open({
      client,
      prefix: opts.prefix,
      clock: opts.clock,
      logger: opts.logger.child('etcd-store'),
      clusterId: opts.clusterId,
    })
    await bindDataDir(opts.fs, opts.dataDir, store.clusterId(), opts.nodeId)
  } catch (err) {
    await store?.close().catch(() => {})
    client.close()
    throw err
  }
  const opened = store
  let membership: EtcdMembership | undefined
  let closing: Promise<void> | undefined
  return {
    store: opened,
    get membership() {
      return membership
    },
    async join(endpoints) {
      membership = await EtcdMembership.start({
        client,
        prefix: opts.prefix,
        nodeId: opts.nodeId,
        rack: opts.rack,
        endpoints,
        sessionTimeoutMs: opts.sessionTimeoutMs,
        clock: opts.clock,
        logger: opts.logger.child('membership'),
      })
      return membership
    },
    close() {
      closing ??= (async () => {
        await membership?.close().catch((err) => opts.logger.warn('leaving the cluster failed', { err }))
        await opened.close().catch((err) => opts.logger.warn('closing the etcd metadata store failed', { err }))
        client.close()
      })()
      return closing
    },
  }
}

/** An etcd client as brokers use it (a broken watch is re-opened within 2 s). */
export function newEtcdClient(endpoints: readonly string[], dialTimeoutMs = CONNECT_TIMEOUT_MS, tls?: EtcdTls): Etcd3 {
  return new Etcd3({
    hosts: [...endpoints],
    dialTimeout: dialTimeoutMs,
    faultHandling: { watchBackoff: watchBackoff(0) },
    // gRPC takes a null CA as "its bundled roots"; etcd3's type wants a Buffer.
    ...(tls
      ? {
          credentials: {
            rootCertificate: tls.ca as Buffer,
            ...(tls.key ? { privateKey: tls.key } : {}),
            ...(tls.cert ? { certChain: tls.cert } : {}),
          },
        }
      : {}),
  })
}

/** An etcd client whose first request answered within the timeout. */
export async function connectEtcd(endpoints: readonly string[], timeoutMs: number, tls?: EtcdTls): Promise<Etcd3> {
  const client = newEtcdClient(endpoints, timeoutMs, tls)
  try {
    await client.get('/').options({ deadline: Date.now() + timeoutMs })
    return client
  } catch (err) {
    client.close()
    throw new EtcdMetadataError(
      `cannot reach etcd at ${endpoints.join(',')} (${(err as Error).message.replace(/\s*Resolution note:\s*$/, '')}); check etcd.endpoints and that etcd is running`,
    )
  }
}

/**
 * Delays between attempts to re-open a broken watch stream: 100 ms doubling up to 2 s. (The etcd3
 * client's default grows to 30 s, so after an etcd outage a broker could miss changes — a vacant
 * controller seat among them — for that long.)
 */
function watchBackoff(attempt: number): { duration: number; next(): ReturnType<typeof watchBackoff> } {
  return { duration: Math.min(100 * 2 ** attempt, WATCH_RETRY_MAX_MS), next: () => watchBackoff(Math.min(attempt + 1, 10)) }
}

/** meta.properties: written for a new data dir; must name this cluster and node otherwise. */
async function bindDataDir(fs: Fs, dataDir: string, clusterId: string, nodeId: number): Promise<void> {
  await fs.mkdir(dataDir)
  const path = dataDir.endsWith('/') ? dataDir + META_PROPERTIES : `${dataDir}/${META_PROPERTIES}`
  const meta = await readMetaProperties(fs, path)
  if (!meta) {
    await writeFileAtomic(fs, path, metaPropertiesText(clusterId, nodeId))
    return
  }
  if (meta.clusterId !== clusterId) {
    throw new MetadataFileError(
      path,
      `this data dir belongs to cluster ${meta.clusterId}, but etcd holds cluster ${clusterId}; ` +
        'point etcd.endpoints/etcd.prefix at the cluster this broker belongs to, or give it an empty log.dirs to join this one',
    )
  }
  if (meta.nodeId !== nodeId) {
    throw new MetadataFileError(
      path,
      `stored node.id ${meta.nodeId} does not match the configured node.id ${nodeId}; this data dir belongs to another broker`,
    )
  }
}
