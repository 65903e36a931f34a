// `tributary transactions list | describe | abort | find-hanging`: the transactions the
// coordinators know and the way out of a hanging one, as Kafka's kafka-transactions.sh, on the
// client's admin calls (src/client/admin-transactions.ts), so it works against Apache Kafka too.
//
//   tributary transactions list [--state Ongoing]… [--producer-id N]… [--duration-filter MS] [--transactional-id-pattern RE]
//   tributary transactions describe TXN_ID
//   tributary transactions find-hanging [--topic T [--partition P]] [--broker-id B] [--max-transaction-timeout MIN]
//   tributary transactions abort --topic T --partition P --start-offset O
//   tributary transactions abort --topic T --partition P --producer-id N --producer-epoch E --coordinator-epoch C
//
// Exit codes: 0 success, 1 failure (the broker refused, an unknown id, no open transaction at the
// offset), 2 usage. --json prints one JSON document on stdout.
import type { Command } from 'commander'
import {
  type AbortSpec,
  abortTransaction,
  describeTransactions,
  findHangingTransactions,
  findOpenTransaction,
  listTransactions,
  type OpenTransaction,
  type TransactionDescription,
} from '../client/admin-transactions.js'
import { ClientError } from '../client/errors.js'
import {
  adminCommand,
  collect,
  type ConnectionOptions,
  INT16_MAX,
  INT32_MAX,
  intOption,
  runTool,
  table,
  ToolError,
  type ToolIo,
  UsageError,
  withClient,
  withExamples,
} from './common.js'
import type { CliDeps } from './deps.js'

interface ListOptions extends ConnectionOptions {
  json: boolean
  state: string[]
  producerId: string[]
  durationFilter?: number
  transactionalIdPattern?: string
}

interface DescribeOptions extends ConnectionOptions {
  json: boolean
}

interface AbortOptions extends ConnectionOptions {
  json: boolean
  topic: string
  partition: number
  startOffset?: number
  producerId?: number
  producerEpoch?: number
  coordinatorEpoch?: number
}

interface FindHangingCliOptions extends ConnectionOptions {
  json: boolean
  topic?: string
  partition?: number
  brokerId?: number
  maxTransactionTimeout: number
}

export function registerTransactionsCommand(program: Command, deps: CliDeps): void {
  const txn = withExamples(
    program.command('transactions').description('list, describe and abort transactions (as kafka-transactions.sh)'),
    [
      'tributary transactions list --state Ongoing',
      'tributary transactions find-hanging --max-transaction-timeout 5',
      'tributary transactions abort --topic events --partition 0 --start-offset 1200',
    ],
  )

  adminCommand(txn, 'list', 'list the transactional ids every coordinator knows, with their producer id and state', [
    'tributary transactions list',
    'tributary transactions list --state Ongoing --state PrepareCommit',
    'tributary transactions list --duration-filter 60000 --json',
  ])
    .option('--state <state>', 'only transactions in this state (Ongoing, Empty, PrepareCommit, …); repeatable', collect, [])
    .option('--producer-id <id>', 'only this producer id; repeatable', collect, [])
    .option('--duration-filter <ms>', 'only transactions running longer than this (ListTransactions v1+)', intOption(0))
    .option('--transactional-id-pattern <regex>', 'only ids matching this regular expression (ListTransactions v2+)')
    .action((opts: ListOptions) => runTool(deps, 'transactions list', (io) => runList(opts, io)))

  adminCommand(txn, 'describe', 'show the state of a transactional id: producer, epoch, state, start time and partitions', [
    'tributary transactions describe copier-1',
    'tributary transactions describe copier-1 --json | jq .partitions',
  ])
    .argument('<transactional-id>', 'the transactional id')
    .action((id: string, opts: DescribeOptions) => runTool(deps, 'transactions describe', (io) => runDescribe(id, opts, io)))

  adminCommand(
    txn,
    'abort',
    "abort a hanging transaction on one partition: write an ABORT marker for its producer, so the partition's last stable offset moves on",
    [
      'tributary transactions abort --topic events --partition 0 --start-offset 1200',
      'tributary transactions abort --topic events --partition 0 --producer-id 4000 --producer-epoch 3 --coordinator-epoch 0',
    ],
  )
    .requiredOption('--topic <name>', 'topic of the partition')
    .requiredOption('--partition <n>', 'the partition', intOption(0, INT32_MAX))
    .option(
      '--start-offset <offset>',
      'first offset of the transaction to abort (its producer is looked up with DescribeProducers)',
      intOption(0),
    )
    .option('--producer-id <id>', "the transaction's producer id (instead of --start-offset)", intOption(0))
    .option('--producer-epoch <epoch>', "the producer's epoch (with --producer-id)", intOption(0, INT16_MAX))
    .option('--coordinator-epoch <epoch>', 'the coordinator epoch (with --producer-id; -1 is taken as 0)', intOption(-1, INT32_MAX))
    .action((opts: AbortOptions) => runTool(deps, 'transactions abort', (io) => runAbort(opts, io)))

  adminCommand(txn, 'find-hanging', 'find open transactions older than the maximum transaction timeout that no coordinator will finish', [
    'tributary transactions find-hanging',
    'tributary transactions find-hanging --topic events --max-transaction-timeout 1',
  ])
    .option('--topic <name>', 'only this topic (default: every topic)')
    .option('--partition <n>', 'only this partition of --topic', intOption(0, INT32_MAX))
    .option('--broker-id <id>', 'only partitions with a replica on this broker', intOption(0, INT32_MAX))
    .option('--max-transaction-timeout <minutes>', 'transactions open longer than this are candidates', intOption(0), 15)
    .action((opts: FindHangingCliOptions) => runTool(deps, 'transactions find-hanging', (io) => runFindHanging(opts, io)))
}

async function runList(opts: ListOptions, io: ToolIo): Promise<number> {
  const producerIds = opts.producerId.map((s) => {
    if (!/^\d+$/.test(s.trim()) || !Number.isSafeInteger(Number(s)))
      throw new UsageError(`--producer-id ${JSON.stringify(s)}: expected a producer id`)
    return Number(s)
  })
  const { transactions, unknownStateFilters } = await withClient(opts, (client) =>
    listTransactions(client, {
      states: opts.state,
      producerIds,
      ...(opts.durationFilter !== undefined ? { durationFilterMs: opts.durationFilter } : {}),
      ...(opts.transactionalIdPattern !== undefined ? { transactionalIdPattern: opts.transactionalIdPattern } : {}),
    }),
  )
  if (opts.json) io.stdout(`${JSON.stringify({ transactions, unknownStateFilters }, null, 2)}\n`)
  else if (transactions.length === 0) io.stdout('no transactions\n')
  else
    io.stdout(
      table(
        ['TRANSACTIONAL ID', 'COORDINATOR', 'PRODUCER ID', 'STATE'],
        transactions.map((t) => [t.transactionalId, t.coordinator, t.producerId, t.state]),
      ),
    )
  for (const s of unknownStateFilters) io.stderr(`tributary transactions list: unknown state ${JSON.stringify(s)} matched nothing\n`)
  return 0
}

async function runDescribe(id: string, opts: DescribeOptions, io: ToolIo): Promise<number> {
  const [d] = await withClient(opts, (client) => describeTransactions(client, [id]))
  if (!d) throw new ToolError(`no answer for transactional id '${id}'`)
  if (d.error === 'TRANSACTIONAL_ID_NOT_FOUND') {
    throw new ToolError(`transactional id '${id}' is not known to its coordinator`, 'list the known ids with: tributary transactions list')
  }
  if (d.error !== null) throw new ClientError(d.error, `describing transactional id '${id}'`)
  const now = Date.now()
  if (opts.json) {
    io.stdout(`${JSON.stringify({ ...d, durationMs: d.startTimeMs < 0 ? null : now - d.startTimeMs }, null, 2)}\n`)
    return 0
  }
  io.stdout(describeText(d, now))
  return 0
}

function describeText(d: TransactionDescription, now: number): string {
  return table(
    ['COORDINATOR', 'TRANSACTIONAL ID', 'PRODUCER ID', 'EPOCH', 'STATE', 'TIMEOUT MS', 'START TIME', 'DURATION MS', 'PARTITIONS'],
    [
      [
        d.coordinator,
        d.transactionalId,
        d.producerId,
        d.producerEpoch,
        d.state,
        d.timeoutMs,
        d.startTimeMs < 0 ? null : new Date(d.startTimeMs).toISOString(),
        d.startTimeMs < 0 ? null : now - d.startTimeMs,
        d.partitions.length === 0 ? null : d.partitions.map((p) => `${p.topic}-${p.partition}`).join(','),
      ],
    ],
  )
}

async function runAbort(opts: AbortOptions, io: ToolIo): Promise<number> {
  const byProducer = opts.producerId !== undefined || opts.producerEpoch !== undefined || opts.coordinatorEpoch !== undefined
  if (opts.startOffset !== undefined && byProducer) {
    throw new UsageError('give --start-offset, or --producer-id with --producer-epoch and --coordinator-epoch, not both')
  }
  if (opts.startOffset === undefined && !byProducer) {
    throw new UsageError(
      'name the transaction to abort with --start-offset, or with --producer-id, --producer-epoch and --coordinator-epoch',
    )
  }
  if (byProducer && (opts.producerId === undefined || opts.producerEpoch === undefined || opts.coordinatorEpoch === undefined)) {
    throw new UsageError('--producer-id, --producer-epoch and --coordinator-epoch go together')
  }
  const spec = await withClient(opts, async (client) => {
    let s: AbortSpec | null
    if (opts.startOffset !== undefined) {
      s = await findOpenTransaction(client, opts.topic, opts.partition, opts.startOffset).catch((err: unknown) => {
        throw explainPartition(err, opts)
      })
      if (!s) {
        throw new ToolError(
          `no open transaction starts at offset ${opts.startOffset} of ${opts.topic}-${opts.partition}`,
          `see the open transactions with: tributary producers describe ${opts.topic} --partition ${opts.partition}`,
        )
      }
    } else {
      s = {
        topic: opts.topic,
        partition: opts.partition,
        producerId: opts.producerId!,
        producerEpoch: opts.producerEpoch!,
        coordinatorEpoch: opts.coordinatorEpoch!,
      }
    }
    await abortTransaction(client, s).catch((err: unknown) => {
      throw explainPartition(err, opts)
    })
    return s
  })
  if (opts.json) io.stdout(`${JSON.stringify({ aborted: spec }, null, 2)}\n`)
  else
    io.stdout(
      `Aborted the transaction of producer ${spec.producerId} (epoch ${spec.producerEpoch}, coordinator epoch ${Math.max(0, spec.coordinatorEpoch)}) on ${spec.topic}-${spec.partition}\n`,
    )
  return 0
}

function explainPartition(err: unknown, opts: AbortOptions): unknown {
  if (err instanceof ClientError && err.code === 'UNKNOWN_TOPIC_OR_PARTITION') {
    return new ToolError(`partition ${opts.topic}-${opts.partition} does not exist`, 'list topics with: tributary topic list')
  }
  return err
}

async function runFindHanging(opts: FindHangingCliOptions, io: ToolIo): Promise<number> {
  if (opts.partition !== undefined && opts.topic === undefined) throw new UsageError('--partition needs --topic')
  const now = Date.now()
  const hanging = await withClient(opts, (client) =>
    findHangingTransactions(client, {
      ...(opts.topic !== undefined ? { topic: opts.topic } : {}),
      ...(opts.partition !== undefined ? { partition: opts.partition } : {}),
      ...(opts.brokerId !== undefined ? { brokerId: opts.brokerId } : {}),
      maxTransactionTimeoutMs: opts.maxTransactionTimeout * 60_000,
      nowMs: now,
    }),
  )
  if (opts.json) {
    io.stdout(`${JSON.stringify({ hanging: hanging.map((h) => hangingJson(h, now)) }, null, 2)}\n`)
    return 0
  }
  if (hanging.length === 0) {
    io.stdout('no hanging transactions\n')
    return 0
  }
  io.stdout(
    table(
      ['TOPIC', 'PARTITION', 'PRODUCER ID', 'EPOCH', 'COORDINATOR EPOCH', 'START OFFSET', 'LAST TIMESTAMP', 'DURATION (MIN)'],
      hanging.map((h) => [
        h.topic,
        h.partition,
        h.producer.producerId,
        h.producer.producerEpoch,
        h.producer.coordinatorEpoch,
        h.producer.currentTxnStartOffset,
        new Date(h.producer.lastTimestamp).toISOString(),
        Math.floor((now - h.producer.lastTimestamp) / 60_000),
      ]),
    ),
  )
  io.stderr(
    `abort one with: tributary transactions abort --topic ${hanging[0]!.topic} --partition ${hanging[0]!.partition} --start-offset ${hanging[0]!.producer.currentTxnStartOffset}\n`,
  )
  return 0
}

function hangingJson(h: OpenTransaction, now: number) {
  return {
    topic: h.topic,
    partition: h.partition,
    producerId: h.producer.producerId,
    producerEpoch: h.producer.producerEpoch,
    coordinatorEpoch: h.producer.coordinatorEpoch,
    startOffset: h.producer.currentTxnStartOffset,
    lastTimestamp: h.producer.lastTimestamp,
    durationMs: now - h.producer.lastTimestamp,
  }
}
