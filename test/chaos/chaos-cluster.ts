// The cluster of a chaos run: three `tributary start` processes and a 3-member etcd cluster
// (test/helpers/cluster.ts, test/helpers/etcd.ts), every broker behind a fault proxy
// (fault-proxy.ts) that it advertises, and every broker talking to each etcd member through a
// proxy of its own (all three named 'etcd' for that broker, so one cut takes the broker off etcd),
// so the nemesis can cut broker↔broker and broker↔etcd links. Each broker listens on a port chosen
// here (its proxy forwards there) and keeps it over restarts.
//
// With `disk: true` or `power: true` the brokers run test/chaos/faulty-broker-main.ts instead of
// the command (the same start, a FaultyFs under it), each with a control file of its own (setDisk()
// switches the fault of one broker) and, for `power`, a journal of what a power cut keeps of its
// files (power-journal.ts; cutPower() applies it to a killed broker).
import { mkdtempSync, renameSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { createTopics } from '../../src/client/admin.js'
import { KafkaClient } from '../../src/client/client.js'
import { type Cluster, startCluster, waitFor } from '../helpers/cluster.js'
import { freePort } from '../helpers/drop-proxy.js'
import { FaultNet, type FaultProxy } from './fault-proxy.js'
import { DISK_FAULT_FILE_ENV, type DiskMode } from './faulty-fs.js'
import { cutPower, POWER_JOURNAL_ENV, type PowerCut } from './power-journal.js'

/** dist/test/chaos/chaos-cluster.js → dist/test/chaos/faulty-broker-main.js */
const FAULTY_BROKER_MAIN = fileURLToPath(new URL('./faulty-broker-main.js', import.meta.url))

export const ETCD_MEMBERS = 3

export interface ChaosCluster {
  cluster: Cluster
  net: FaultNet
  /** Node names: 'b1'… for brokers, 'etcd'. */
  brokerName(id: number): string
  /** The proxies' addresses, as clients dial them. */
  bootstrap(): string[]
  /** Switches broker `id`'s disk fault (disk: true only); a running broker takes it at once, a restarted one at start. */
  setDisk(id: number, mode: DiskMode): void
  /** After broker `id` was killed (power: true only): its files lose what they did not fsync. */
  cutPower(id: number): PowerCut
  close(): Promise<void>
}

export const brokerName = (id: number) => `b${id}`

export async function startChaosCluster(opts: {
  brokers: number
  topic: string
  partitions: number
  disk?: boolean
  power?: boolean
}): Promise<ChaosCluster> {
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
  const etcdProxies = new Map<number, FaultProxy[]>()
  const etcdPorts: number[] = []
  for (const id of ids) {
    const port = await freePort()
    ports.set(id, port)
    proxies.set(id, await net.proxy(brokerName(id), port))
    const mine: FaultProxy[] = []
    for (let m = 0; m < ETCD_MEMBERS; m++) mine.push(await net.proxy('etcd', () => etcdPorts[m]!, brokerName(id)))
    etcdProxies.set(id, mine)
  }
  const controlDir = opts.disk || opts.power ? mkdtempSync(join(tmpdir(), 'tributary-chaos-disk-')) : undefined
  const controlFile = (id: number) => join(controlDir!, `b${id}.mode`)
  const journalFile = (id: number) => join(controlDir!, `b${id}.journal`)
  const brokerEnv = (id: number): Record<string, string> => ({
    [DISK_FAULT_FILE_ENV]: controlFile(id),
    ...(opts.power ? { [POWER_JOURNAL_ENV]: journalFile(id) } : {}),
  })
  try {
    cluster = await startCluster({
      brokers: opts.brokers,
      etcdMembers: ETCD_MEMBERS,
      // The internal topics as Kafka makes them on a cluster (its defaults; Tributary's are those of
      // a single node): on one replica, a power cut loses the group offsets, transaction states and
      // share-group states the broker had not fsynced, as it would in Kafka.
      overrides: {
        'offsets.topic.replication.factor': String(opts.brokers),
        'transaction.state.log.replication.factor': String(opts.brokers),
        'transaction.state.log.min.isr': '2',
        'share.coordinator.state.topic.replication.factor': String(opts.brokers),
        'share.coordinator.state.topic.min.isr': '2',
      },
      perBroker: (id) => ({
        listeners: `PLAINTEXT://127.0.0.1:${ports.get(id)}`,
        'advertised.listeners': `PLAINTEXT://127.0.0.1:${proxies.get(id)!.port}`,
      }),
      etcdEndpointOf: (id, endpoint, member) => {
        etcdPorts[member] = Number(new URL(endpoint).port)
        return `http://127.0.0.1:${etcdProxies.get(id)![member]!.port}`
      },
      ...(controlDir ? { brokerMain: FAULTY_BROKER_MAIN, brokerEnv } : {}),
    })
  } catch (err) {
    await net.close()
    if (controlDir) rmSync(controlDir, { recursive: true, force: true })
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
    cutPower(id) {
      if (!opts.power) throw new Error('this chaos cluster was started without power cuts')
      if (c.state(id) !== 'stopped') throw new Error(`broker ${id} is not stopped: kill it before its power is cut`)
      return cutPower(journalFile(id))
    },
    setDisk(id, mode) {
      if (!controlDir) throw new Error('this chaos cluster was started without disk faults')
      // Written whole, then renamed over the old one: the broker never reads half a mode.
      const file = controlFile(id)
      writeFileSync(`${file}.tmp`, `${mode}\n`)
      renameSync(`${file}.tmp`, file)
      if (c.state(id) === 'running') {
        try {
          process.kill(c.broker(id).pid, 'SIGUSR2')
        } catch {
          // exited meanwhile: it reads the file when restarted
        }
      }
    },
    close: async () => {
      await c.close()
      await net.close()
      if (controlDir) rmSync(controlDir, { recursive: true, force: true })
    },
  }
}
