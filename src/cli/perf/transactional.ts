// `tributary perf produce --transactional-id ID [--transaction-duration-ms MS]`: Kafka's
// ProducerPerformance with a transactional producer — one producer (the client's
// TransactionalProducer, src/client/transactional-producer.ts) whose records go into transactions
// committed every MS (3000 by default, as Kafka's), the last one when the run ends. Throughput and
// latency count acknowledged records (send to Produce acknowledgement, as the plain run); the
// summary adds the number of transactions committed and the transaction protocol used.
import { setTimeout as sleep } from 'node:timers/promises'
import { TransactionalProducer } from '../../client/transactional-producer.js'
import { connectClient, type PerfIo, printSummary, startProgress } from './io.js'
import { type ProduceOptions, UsageError } from './options.js'
import { Meter } from './stats.js'
import { ensureProducedTopic } from './topic.js'

/** Kafka's ProducerPerformance: the transactional id used when only a duration is given. */
export const DEFAULT_PERF_TRANSACTIONAL_ID = 'performance-producer-default-transactional-id'
/** Kafka's ProducerPerformance default transaction duration. */
export const DEFAULT_TRANSACTION_DURATION_MS = 3000

/** Records sent between two looks at the clock and the event loop. */
const YIELD_EVERY = 256

export function checkTransactional(o: ProduceOptions): void {
  if (o.producers !== 1) throw new UsageError('--transactional-id runs one producer: drop --producers')
  if (o.raw) throw new UsageError('--raw sends pre-built batches without a producer id: it cannot run in transactions')
  if (o.acks !== -1) throw new UsageError('transactions need --acks all')
}

export async function runTransactionalProduce(o: ProduceOptions, io: PerfIo): Promise<void> {
  checkTransactional(o)
  const transactionalId = o.transactionalId ?? DEFAULT_PERF_TRANSACTIONAL_ID
  const durationMs = o.transactionDurationMs ?? DEFAULT_TRANSACTION_DURATION_MS
  const client = await connectClient(o)
  let txn: TransactionalProducer | undefined
  try {
    const topic = await ensureProducedTopic(client, o, (m) => io.stderr(`perf produce: ${m}\n`))
    const meter = new Meter()
    let failure: Error | null = null
    txn = await TransactionalProducer.create(client, {
      transactionalId,
      batchSizeBytes: o.batchSize,
      lingerMs: o.lingerMs,
      onDelivery: (_topic, r) => {
        if (r.error) {
          failure ??= r.error
          return
        }
        const now = Date.now()
        meter.add(r.records.length, r.records.length * o.recordSize)
        for (const rec of r.records) meter.latency(Math.max(0, now - (rec.timestamp ?? now)) * 1000)
      },
    })
    await txn.initTransactions()
    const producer = await txn.producer(o.topic)
    let stopped = false
    io.onStop(() => {
      stopped = true
    })
    const value = Buffer.alloc(o.recordSize, 0x61)
    const limit = o.numRecords ?? Number.POSITIVE_INFINITY
    meter.start()
    const startedAt = performance.now()
    const endAt = o.duration === undefined ? Number.POSITIVE_INFINITY : startedAt + o.duration * 1000
    const stopProgress = startProgress(io, meter, 'produce', 'sent')
    try {
      txn.beginTransaction()
      let txnStartedAt = performance.now()
      for (let sent = 0; sent < limit && !stopped; ) {
        producer.send({ key: null, value, timestamp: Date.now() })
        sent++
        if (producer.isFull) await producer.waitForSpace()
        if (sent % YIELD_EVERY !== 0 && sent < limit) continue
        const now = performance.now()
        if (now >= endAt) break
        if (now - txnStartedAt >= durationMs) {
          await txn.commitTransaction()
          txn.beginTransaction()
          txnStartedAt = performance.now()
        }
        if (o.throughput > 0) {
          const due = startedAt + (sent / o.throughput) * 1000
          if (due > now) await sleep(due - now)
        } else await new Promise<void>((resolve) => setImmediate(resolve))
        if (failure) break
      }
      if (failure) {
        await txn.abortTransaction()
        throw failure
      }
      await txn.commitTransaction()
    } finally {
      stopProgress()
      meter.stop()
    }
    printSummary(io, o.json, { label: 'produce', verb: 'sent' }, meter.summary(), {
      mode: 'produce',
      topic: o.topic,
      partitions: topic.partitions.length,
      recordSize: o.recordSize,
      acks: o.acks,
      batchSize: o.batchSize,
      lingerMs: o.lingerMs,
      producers: 1,
      targetThroughput: o.throughput,
      compression: o.compression,
      transactionalId,
      transactionDurationMs: durationMs,
      transactions: txn.committed,
      transactionVersion: txn.transactionVersion,
      latency: 'record sent to produce acknowledged',
    })
    if (!o.json) io.stdout(`${txn.committed} transactions committed (transaction protocol v${txn.transactionVersion})\n`)
  } finally {
    await txn?.close()
    await client.close()
  }
}
