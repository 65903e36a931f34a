// `tributary perf consume`: reads the topic from its earliest offsets without a consumer group,
// over all partitions, until --num-records records were read, --duration elapsed, or — with
// neither — every partition reached the end offset it had when the run started. Records are
// counted from batch headers; MB/s counts the record batch bytes read. Latency: Fetch round trip.
// --isolation read_committed reads up to the last stable offsets, skipping aborted transactions.
import { listOffsets, OffsetSpec } from '../../client/admin.js'
import { PerfConsumer } from './consumer.js'
import { connectClient, type PerfIo, printSummary, startProgress } from './io.js'
import { type ConsumeOptions, checkConsume } from './options.js'
import { Meter } from './stats.js'
import { ensureTopic } from './topic.js'

export async function runConsume(o: ConsumeOptions, io: PerfIo): Promise<void> {
  checkConsume(o)
  const client = await connectClient(o)
  try {
    const topic = await ensureTopic(client, o.topic, { create: false, warn: (m) => io.stderr(`perf consume: ${m}\n`) })
    const readCommitted = o.isolation === 'read_committed'
    const startOffsets = await listOffsets(client, o.topic, null, OffsetSpec.Earliest)
    const untilEnd = o.numRecords === undefined && o.duration === undefined
    const endOffsets = untilEnd ? await listOffsets(client, o.topic, null, OffsetSpec.Latest, readCommitted) : undefined
    const meter = new Meter()
    const consumer = new PerfConsumer({
      client,
      topic,
      startOffsets,
      ...(endOffsets ? { endOffsets } : {}),
      maxRecords: o.numRecords ?? Number.POSITIVE_INFINITY,
      durationMs: o.duration === undefined ? Number.POSITIVE_INFINITY : o.duration * 1000,
      maxWaitMs: 500,
      minBytes: 1,
      fetchMaxBytes: o.fetchMaxBytes,
      partitionMaxBytes: o.fetchSize,
      idleTimeoutMs: o.timeout,
      meter,
      measureFetchLatency: true,
      readCommitted,
    })
    io.onStop(() => consumer.stop())
    meter.start()
    const stopProgress = startProgress(io, meter, 'consume', 'read')
    try {
      await consumer.run()
    } finally {
      stopProgress()
      meter.stop()
    }
    printSummary(io, o.json, { label: 'consume', verb: 'read', latencyWhat: 'fetch latency' }, meter.summary(), {
      mode: 'consume',
      topic: o.topic,
      partitions: topic.partitions.length,
      fetchSize: o.fetchSize,
      fetchMaxBytes: o.fetchMaxBytes,
      isolation: o.isolation,
      latency: 'fetch round trip',
    })
  } finally {
    await client.close()
  }
}
