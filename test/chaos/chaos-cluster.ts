// The cluster of a chaos run: three `tributary start` processes and etcd (test/helpers/cluster.ts),
// every broker behind a fault proxy (fault-proxy.ts) that it advertises, and every broker talking to
// etcd through a proxy of its own, so the nemesis can cut broker↔broker and broker↔etcd links.
// Each broker listens on a port chosen here (its proxy forwards there) and keeps it over restarts.
import { createTopics } from '../../src/client/admin.js'
import { KafkaClient } from '../../src/client/client.js'
import { type Cluster, startCluster, waitFor } from '../helpers/cluster.js'
import { freePort } from '../helpers/drop-proxy.js'
import { FaultNet, type FaultProxy } from './fault-proxy.js'

export interface ChaosCluster {
  cluster: Cluster
  net: FaultNet
  /** Node names: 'b1'… for brokers, 'etcd'. */
  brokerName(id: number): string
  /** The proxies' addresses, as clients dial them. */
  bootstrap(): string[]
  close(): Promise<void>
}

export const brokerName = (id: number) => `b${id}`

export async function startChaosCluster(opts: { brokers: number; topic: string; partitions: number }): Promise<ChaosCluster> {
  const ids = Array.from({ length: opts.brokers }, (_, i) => i + 1)
  let cluster: Cluster | undefined
  const net = new FaultNet(() => {
    const m = new Map<number, string>()
    if (!cluster) return m
    for (const id of cluster.ids()) if (cluster.state(id) !== 'stopped') m.set(cluster.broker(id).pid, brokerName(id))
    return m
  })
  const ports = new Map<number, number>()
  const proxies = new Map<number, FaultProxy>()
  const etcdProxies = new Map<number, FaultProxy>()
  let etcdPort = 0
  for (const id of ids) {
    const port = await freePort()
    ports.set(id, port)
    proxies.set(id, await net.proxy(brokerName(id), port))
    etcdProxies.set(id, await net.proxy('etcd', () => etcdPort, brokerName(id)))
  }
  try {
    cluster = await startCluster({
      brokers: opts.brokers,
      perBroker: (id) => ({
        listeners: `PLAINTEXT://127.0.0.1:${ports.get(id)}`,
        'advertised.listeners': `PLAINTEXT://127.0.0.1:${proxies.get(id)!.port}`,
      }),
      etcdEndpointOf: (id, endpoint) => {
        etcdPort = Number(new URL(endpoint).port)
        return `http://127.0.0.1:${etcdProxies.get(id)!.port}`
      },
    })
  } catch (err) {
    await net.close()
    throw err
  }
  const c = cluster
  const bootstrap = () => ids.map((id) => `127.0.0.1:${proxies.get(id)!.port}`)
  const client = await KafkaClient.connect({ bootstrap: bootstrap() })
  try {
    await createTopics(client, [
      { name: opts.topic, numPartitions: opts.partitions, replicationFactor: opts.brokers, configs: { 'min.insync.replicas': '2' } },
    ])
  } finally {
    await client.close()
  }
  for (let p = 0; p < opts.partitions; p++) {
    await waitFor(
      async () => ((await c.partitionState(opts.topic, p)).isr.length === opts.brokers ? true : undefined),
      `ISR of ${opts.topic}-${p}`,
      60_000,
    )
  }
  return {
    cluster: c,
    net,
    brokerName,
    bootstrap,
    close: async () => {
      await c.close()
      await net.close()
    },
  }
}
