// The leader's produce path alone: ReplicaManager.append of one batch per call, on an in-memory log
// (storage/memory-fs.ts), so what is measured is validation, the topic's timestamp, key and
// compression rules, and the log's bookkeeping — no socket, no request decoding, no disk.
// Scenarios: an uncompressed and an lz4 batch on a plain topic, and on a compacted topic with
// CreateTime bounds or with LogAppendTime and a compression.type that makes the broker rebuild the
// batch (the cases where a batch's records are walked, and a compressed one decompressed).
// Prints, per scenario, the median over the runs of µs per append and of CPU µs per append.
//   node dist/bench/append-path.js [appends=3000] [runs=5]
import { CompressionType } from '../src/protocol/records/batch.js'
import { buildRecordBatch } from '../src/protocol/records/builder.js'
import type { AppendPolicy } from '../src/ports/replicas.js'
import { ReplicaManager } from '../src/replication/replica-manager.js'
import { defaultLogConfig } from '../src/storage/log-config.js'
import { LogManager } from '../src/storage/log-manager.js'
import { MemoryFs } from '../src/storage/memory-fs.js'
import { ManualClock } from '../src/util/clock.js'
import { silentLogger } from '../src/util/logger.js'

const appends = Number(process.argv[2] ?? 3000)
const runs = Number(process.argv[3] ?? 5)
const RECORDS = 100
const VALUE_BYTES = 100
const NOW = 1_700_000_000_000
const TOPIC_ID = 'AAAAAAAAAAAAAAAAAAAAAQ'

const unbounded = { logAppendTime: false, beforeMaxMs: Number.MAX_SAFE_INTEGER, afterMaxMs: Number.MAX_SAFE_INTEGER }
const scenarios: Array<{ name: string; codec: number; policy: AppendPolicy }> = [
  { name: 'uncompressed, plain topic', codec: CompressionType.None, policy: unbounded },
  { name: 'lz4, plain topic', codec: CompressionType.Lz4, policy: unbounded },
  {
    name: 'uncompressed, compacted, CreateTime bounds',
    codec: CompressionType.None,
    policy: { logAppendTime: false, beforeMaxMs: 3_600_000, afterMaxMs: 3_600_000, requireKeys: true },
  },
  {
    name: 'lz4, compacted, CreateTime bounds',
    codec: CompressionType.Lz4,
    policy: { logAppendTime: false, beforeMaxMs: 3_600_000, afterMaxMs: 3_600_000, requireKeys: true },
  },
  {
    name: 'lz4, compacted, LogAppendTime, compression.type=uncompressed',
    codec: CompressionType.Lz4,
    policy: { ...unbounded, logAppendTime: true, requireKeys: true, compressionType: 'uncompressed' },
  },
  {
    name: 'lz4, compacted, LogAppendTime, compression.type=zstd',
    codec: CompressionType.Lz4,
    policy: { ...unbounded, logAppendTime: true, requireKeys: true, compressionType: 'zstd' },
  },
]

function batch(codec: number): Buffer {
  const value = Buffer.alloc(VALUE_BYTES, 'v')
  return buildRecordBatch({
    compression: codec,
    records: Array.from({ length: RECORDS }, (_, i) => ({ key: Buffer.from(`key-${i % 10}`), value, timestamp: NOW - 1000 + i })),
  })
}

async function run(codec: number, policy: AppendPolicy): Promise<{ wallUs: number; cpuUs: number }> {
  const clock = new ManualClock(NOW)
  const fs = new MemoryFs(() => clock.now())
  const logs = await LogManager.open({ fs, clock, logDir: '/data', config: defaultLogConfig, logger: silentLogger })
  const rm = new ReplicaManager(logs, clock, silentLogger)
  const p = await rm.createPartition('bench', 0, TOPIC_ID)
  const source = batch(codec)
  const warmup = Math.min(500, appends)
  for (let i = 0; i < warmup; i++) await rm.append(p, Buffer.from(source), 1 << 20, policy)
  const cpu0 = process.cpuUsage()
  const t0 = process.hrtime.bigint()
  for (let i = 0; i < appends; i++) await rm.append(p, Buffer.from(source), 1 << 20, policy)
  const wallUs = Number(process.hrtime.bigint() - t0) / 1000 / appends
  const cpu = process.cpuUsage(cpu0)
  await rm.close()
  return { wallUs, cpuUs: (cpu.user + cpu.system) / appends }
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!

console.log(`append path: ${appends} appends of one ${RECORDS}-record batch (${VALUE_BYTES}-byte values), median of ${runs} runs`)
for (const s of scenarios) {
  const results: Array<{ wallUs: number; cpuUs: number }> = []
  for (let r = 0; r < runs; r++) results.push(await run(s.codec, s.policy))
  const wall = median(results.map((x) => x.wallUs))
  const cpu = median(results.map((x) => x.cpuUs))
  console.log(
    `${s.name.padEnd(62)} ${wall.toFixed(1).padStart(7)} µs/append  ${cpu.toFixed(1).padStart(7)} CPU µs/append  ${((RECORDS * 1e6) / wall / 1e6).toFixed(2)} M records/s`,
  )
}
