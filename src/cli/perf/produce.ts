// `tributary perf produce`: --producers producer loops (each with its own connections, as separate
// Kafka producers would have) sending --num-records records (or for --duration) of --record-size
// bytes to the topic's partitions, unthrottled or at --throughput records/s in total. The topic is
// created with --partitions if it does not exist. Latency: produce acknowledgement, per record.
import type { KafkaClient } from '../../client/client.js'
import type { Connection } from '../../client/connection.js'
import { makeBatchTemplate } from './batch-template.js'
import { connectClient, type PerfIo, printSummary, startProgress } from './io.js'
import { checkProduce, type ProduceOptions } from './options.js'
import { PerfProducer } from './producer.js'
import { Meter } from './stats.js'
import { ensureProducedTopic } from './topic.js'
import { runTransactionalProduce } from './transactional.js'

/** n split over k shares, the remainder going to the first ones. */
export function share(n: number, k: number, i: number): number {
  if (!Number.isFinite(n)) return n
  return Math.floor(n / k) + (i < n % k ? 1 : 0)
}

export async function runProduce(o: ProduceOptions, io: PerfIo): Promise<void> {
  checkProduce(o)
  if (o.transactionalId !== undefined || o.transactionDurationMs !== undefined) return runTransactionalProduce(o, io)
  const clients: KafkaClient[] = []
  try {
    const first = await connectClient(o)
    clients.push(first)
    const topic = await ensureProducedTopic(first, o, (m) => io.stderr(`perf produce: ${m}\n`))
    for (let i = 1; i < o.producers; i++) clients.push(await connectClient(o))
    const template = makeBatchTemplate(o.recordSize, o.batchSize)
    const targets = topic.partitions.map((p) => ({ partition: p.partition, leader: p.leader }))
    const leaders = [...new Set(targets.map((t) => t.leader))]
    const meter = new Meter()
    const producers: PerfProducer[] = []
    for (const [i, client] of clients.entries()) {
      const connections = new Map<number, Connection>()
      for (const id of leaders) connections.set(id, await client.connection(id))
      producers.push(
        new PerfProducer({
          topic: o.topic,
          partitions: targets,
          connections,
          template,
          acks: o.acks,
          maxInFlight: o.maxInFlight,
          lingerMs: o.lingerMs,
          throughput: o.throughput > 0 ? o.throughput / o.producers : -1,
          numRecords: share(o.numRecords ?? Number.POSITIVE_INFINITY, o.producers, i),
          durationMs: o.duration === undefined ? Number.POSITIVE_INFINITY : o.duration * 1000,
          raw: o.raw,
          stampValues: false,
          requestTimeoutMs: o.requestTimeoutMs,
          meter,
        }),
      )
    }
    io.onStop(() => {
      for (const p of producers) p.stop()
    })
    meter.start()
    const stopProgress = startProgress(io, meter, 'produce', 'sent')
    try {
      await Promise.all(producers.map((p) => p.run()))
    } finally {
      stopProgress()
      meter.stop()
    }
    printSummary(io, o.json, { label: 'produce', verb: 'sent' }, meter.summary(), {
      mode: 'produce',
      topic: o.topic,
      partitions: topic.partitions.length,
      recordSize: o.recordSize,
      recordsPerBatch: template.recordsPerBatch,
      acks: o.acks,
      batchSize: o.batchSize,
      lingerMs: o.lingerMs,
      producers: o.producers,
      maxInFlight: o.maxInFlight,
      targetThroughput: o.throughput,
      raw: o.raw,
      compression: o.compression,
      latency: 'record generated to produce acknowledged',
    })
  } finally {
    await Promise.all(clients.map((c) => c.close()))
  }
}
