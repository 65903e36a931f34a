// DescribeLogDirs v1–5: this broker's log dirs and, per partition asked for, the size of its
// segments and its offset lag. A null topic list means every partition; topics and partitions the
// broker does not host are left out, as Kafka does (the answer is about what is on this disk).
// v4 adds the volume's total and usable bytes (KIP-827), v5 whether the dir is cordoned (never
// here: Tributary does not cordon log dirs). Errors: KAFKA_STORAGE_ERROR per offline
// log dir; the top-level code (v3+) is NONE (no authorization yet, so never
// CLUSTER_AUTHORIZATION_FAILED).
import { DescribeLogDirsRequest, DescribeLogDirsResponse } from '../protocol/messages/35-describe-log-dirs.js'
import { canCluster, Op } from './authorize.js'
import { defineHandler } from './define.js'
import { ErrorCode } from '../protocol/errors.js'
import type { LogDirPartition } from '../ports/log-dirs.js'

type Wanted = Map<string, Set<number>> | null

export default defineHandler(DescribeLogDirsRequest, DescribeLogDirsResponse, { minVersion: 1, maxVersion: 5 }, async (ctx, req) => {
  const wanted: Wanted = req.topics === null ? null : new Map()
  for (const t of req.topics ?? []) {
    const set = wanted!.get(t.topic) ?? new Set<number>()
    for (const p of t.partitions) set.add(p)
    wanted!.set(t.topic, set)
  }
  // DESCRIBE on the cluster (Kafka's KafkaApis), else no directory and CLUSTER_AUTHORIZATION_FAILED.
  if (!canCluster(ctx, Op.DESCRIBE)) return { throttleTimeMs: 0, errorCode: ErrorCode.CLUSTER_AUTHORIZATION_FAILED.code, results: [] }
  const dirs = await ctx.broker.logDirs.describe()
  return {
    throttleTimeMs: 0,
    errorCode: 0,
    results: dirs.map((d) => ({
      errorCode: d.errorCode,
      logDir: d.path,
      topics: byTopic(d.partitions.filter((p) => isWanted(wanted, p))),
      totalBytes: d.totalBytes,
      usableBytes: d.usableBytes,
      isCordoned: false,
    })),
  }
})

function isWanted(wanted: Wanted, p: LogDirPartition): boolean {
  return wanted === null || wanted.get(p.topic)?.has(p.partition) === true
}

/** Groups partitions by topic, topics by name and partitions by index, for a stable answer. */
function byTopic(partitions: LogDirPartition[]) {
  const topics = new Map<string, LogDirPartition[]>()
  for (const p of partitions) {
    const list = topics.get(p.topic) ?? []
    list.push(p)
    topics.set(p.topic, list)
  }
  return [...topics]
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
    .map(([name, list]) => ({
      name,
      partitions: list
        .sort((a, b) => a.partition - b.partition)
        .map((p) => ({ partitionIndex: p.partition, partitionSize: p.sizeBytes, offsetLag: p.offsetLag, isFutureKey: false })),
    }))
}
