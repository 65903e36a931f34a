// `tributary producers describe TOPIC [--partition N] [--json]`: the idempotent producers each
// partition's leader knows (DescribeProducers, KIP-664) — their id, epoch, last sequence and last
// write — as Kafka's `kafka-transactions.sh describe-producers` lists them, on the client's
// describeProducers (src/client/admin-producers.ts), so it works against Apache Kafka too.
// Exit codes: 0 every partition answered, 1 a partition failed or the topic does not exist
// (the answers that did come are still printed), 2 usage.
import type { Command } from 'commander'
import { describeProducers, type PartitionProducers } from '../client/admin-producers.js'
import { ClientError } from '../client/errors.js'
import {
  adminCommand,
  type ConnectionOptions,
  INT32_MAX,
  intOption,
  runTool,
  type ToolIo,
  table,
  ToolError,
  withClient,
  withExamples,
} from './common.js'
import type { CliDeps } from './deps.js'

interface DescribeOptions extends ConnectionOptions {
  json: boolean
  partition?: number
}

export function registerProducersCommand(program: Command, deps: CliDeps): void {
  const producers = withExamples(program.command('producers').description("show the producers a topic's partitions know"), [
    'tributary producers describe events',
  ])
  adminCommand(producers, 'describe', "list each partition's active idempotent producers: id, epoch, last sequence and last write", [
    'tributary producers describe events',
    'tributary producers describe events --partition 0',
    'tributary producers describe events --json | jq ".partitions[].producers[].producerId"',
  ])
    .argument('<topic>', 'topic name')
    .option('--partition <n>', 'only this partition', intOption(0, INT32_MAX))
    .action((topic: string, opts: DescribeOptions) => runTool(deps, 'producers describe', (io) => runDescribe(topic, opts, io)))
}

async function runDescribe(topic: string, opts: DescribeOptions, io: ToolIo): Promise<number> {
  let partitions: PartitionProducers[]
  try {
    partitions = await withClient(opts, (client) =>
      describeProducers(client, topic, opts.partition === undefined ? null : [opts.partition]),
    )
  } catch (err) {
    if (err instanceof ClientError && err.code === 'UNKNOWN_TOPIC_OR_PARTITION') {
      throw new ToolError(`topic '${topic}' does not exist`, 'list topics with: tributary topic list')
    }
    throw err
  }
  const failed = partitions.filter((p) => p.error !== null)
  if (opts.json) io.stdout(`${JSON.stringify({ topic, partitions }, null, 2)}\n`)
  else io.stdout(describeText(partitions))
  for (const p of failed)
    io.stderr(`tributary producers describe: ${topic}-${p.partition}: ${p.error}${p.message ? `: ${p.message}` : ''}\n`)
  return failed.length > 0 ? 1 : 0
}

function describeText(partitions: PartitionProducers[]): string {
  const rows = partitions.flatMap((p) =>
    p.producers.map((s) => [
      p.partition,
      s.producerId,
      s.producerEpoch,
      s.lastSequence,
      s.lastTimestamp < 0 ? null : new Date(s.lastTimestamp).toISOString(),
      s.coordinatorEpoch,
      s.currentTxnStartOffset < 0 ? null : s.currentTxnStartOffset,
    ]),
  )
  if (rows.length === 0) return 'no active producers\n'
  return table(['PARTITION', 'PRODUCER ID', 'EPOCH', 'LAST SEQUENCE', 'LAST TIMESTAMP', 'COORDINATOR EPOCH', 'TXN START OFFSET'], rows)
}
