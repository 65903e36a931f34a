// `tributary perf e2e`: end-to-end latency. One producer sends at a fixed --throughput; one
// consumer, started first at the partitions' current end, long-polls (Fetch max wait 500 ms, min
// bytes 1, woken by appends). Each record's value starts with the time it was generated
// (performance.now(), float64 ms — producer and consumer share this process's clock), and the
// consumer records now − that time for every record: produce-to-consume latency. The producer's
// acknowledgement latency is reported alongside (produceLatencyMs).
import { listOffsets, OffsetSpec } from '../../client/admin.js'
import { makeBatchTemplate } from './batch-template.js'
import { PerfConsumer } from './consumer.js'
import { connectClient, type PerfIo, printSummary, startProgress } from './io.js'
import { checkE2e, type E2eOptions } from './options.js'
import { PerfProducer } from './producer.js'
import { Meter } from './stats.js'
import { ensureProducedTopic } from './topic.js'

export async function runE2e(o: E2eOptions, io: PerfIo): Promise<void> {
  checkE2e(o)
  const client = await connectClient(o)
  try {
    const topic = await ensureProducedTopic(client, o, (m) => io.stderr(`perf e2e: ${m}\n`))
    const startOffsets = await listOffsets(client, o.topic, null, OffsetSpec.Latest)
    const targets = topic.partitions.map((p) => ({ partition: p.partition, leader: p.leader }))
    const connections = new Map(
      await Promise.all([...new Set(targets.map((t) => t.leader))].map(async (id) => [id, await client.connection(id)] as const)),
    )
    // The consumer gets connections of its own, so its long polls do not queue behind produces.
    const consumerClient = await connectClient(o)
    try {
      const e2e = new Meter()
      const acks = new Meter()
      const consumer = new PerfConsumer({
        client: consumerClient,
        topic,
        startOffsets,
        maxRecords: o.numRecords ?? Number.POSITIVE_INFINITY,
        durationMs: Number.POSITIVE_INFINITY,
        maxWaitMs: 500,
        minBytes: 1,
        fetchMaxBytes: 52_428_800,
        partitionMaxBytes: 1_048_576,
        idleTimeoutMs: o.timeout,
        meter: e2e,
        measureFetchLatency: false,
        onRecordValue: (value) => {
          if (value && value.length >= 8) e2e.latency((performance.now() - value.readDoubleBE(0)) * 1000)
        },
      })
      const producer = new PerfProducer({
        topic: o.topic,
        partitions: targets,
        connections,
        template: makeBatchTemplate(o.recordSize, o.batchSize),
        acks: o.acks,
        maxInFlight: o.maxInFlight,
        lingerMs: o.lingerMs,
        throughput: o.throughput,
        numRecords: o.numRecords ?? Number.POSITIVE_INFINITY,
        durationMs: o.duration === undefined ? Number.POSITIVE_INFINITY : o.duration * 1000,
        raw: false,
        stampValues: true,
        requestTimeoutMs: o.requestTimeoutMs,
        meter: acks,
      })
      io.onStop(() => producer.stop())
      e2e.start()
      acks.start()
      const stopProgress = startProgress(io, e2e, 'e2e', 'received')
      // A consumer failure stops the producer; it is reported once both have ended.
      let consumerFailure: { err: unknown } | undefined
      const consumed = consumer.run().catch((err: unknown) => {
        consumerFailure = { err }
        producer.stop()
      })
      try {
        await producer.run()
        consumer.setTarget(producer.recordsGenerated)
        await consumed
        if (consumerFailure) throw consumerFailure.err
      } catch (err) {
        consumer.stop()
        await consumed
        throw err
      } finally {
        stopProgress()
        e2e.stop()
        acks.stop()
      }
      printSummary(io, o.json, { label: 'e2e', verb: 'received', latencyWhat: 'end-to-end latency' }, e2e.summary(), {
        mode: 'e2e',
        topic: o.topic,
        partitions: topic.partitions.length,
        recordSize: o.recordSize,
        acks: o.acks,
        batchSize: o.batchSize,
        lingerMs: o.lingerMs,
        targetThroughput: o.throughput,
        recordsSent: producer.recordsGenerated,
        produceLatencyMs: acks.summary().latencyMs,
        latency: 'record generated to consumed',
      })
    } finally {
      await consumerClient.close()
    }
  } finally {
    await client.close()
  }
}
