// `tributary perf produce | consume | e2e`, like Kafka's kafka-producer-perf-test.sh,
// kafka-consumer-perf-test.sh and EndToEndLatency, on Tributary's own client (src/client).
//
//   tributary perf produce --topic t --num-records 5000000 --record-size 100 --acks 1 --partitions 8
//   tributary perf consume --topic t
//   tributary perf e2e --topic t --num-records 100000 --throughput 20000
//   tributary perf produce --topic t --num-records 1000000 --transactional-id perf-1 --transaction-duration-ms 100
//
// Exit codes: 0 success, 1 failure (the broker refused, timed out, or could not be reached),
// 2 usage error. The first SIGINT/SIGTERM stops generating and prints the summary of what was
// done; a second one exits 1 at once.
import type { Command } from 'commander'
import { runTool, withCommandConfig } from '../common.js'
import type { CliDeps } from '../deps.js'
import { runConsume } from './consume.js'
import { runE2e } from './e2e.js'
import type { PerfIo } from './io.js'
import { acksOption, bootstrapDefault, compressionOption, intOption, isolationOption, secondsOption, throughputOption } from './options.js'
import { runProduce } from './produce.js'

const INT32_MAX = 0x7fffffff

function common(cmd: Command): Command {
  return withCommandConfig(
    cmd
      .requiredOption('--topic <name>', 'topic to use')
      .option('--bootstrap-server <host:port,...>', 'brokers to bootstrap from (env TRIBUTARY_BOOTSTRAP)', bootstrapDefault()),
  )
    .option('--json', 'print the summary as one JSON object on stdout', false)
    .option('--client-id <id>', 'client id sent with every request', 'tributary-perf')
    .option('--request-timeout-ms <ms>', 'timeout of each request', intOption(1, INT32_MAX), 30_000)
}

function producing(cmd: Command, defaults: { lingerMs: number; throughput: string }): Command {
  return cmd
    .option('--record-size <bytes>', 'value size of each record', intOption(0, 100 * 1024 * 1024), 100)
    .option('--throughput <records/s>', 'target rate in records/s; -1 = unthrottled', throughputOption, Number(defaults.throughput))
    .option('--acks <acks>', 'all (-1), 1 or 0', acksOption, -1)
    .option('--batch-size <bytes>', 'record batch size (bytes)', intOption(1, INT32_MAX), 16_384)
    .option('--linger-ms <ms>', 'wait this long for a batch to fill', intOption(0, INT32_MAX), defaults.lingerMs)
    .option('--partitions <n>', 'create the topic with this many partitions if it does not exist', intOption(1, 1_000_000))
    .option(
      '--compression <type>',
      'none: perf sends uncompressed pre-built batches (tributary produce --compression sends every codec)',
      compressionOption,
      'none',
    )
    .option('--max-in-flight <n>', 'Produce requests in flight per connection', intOption(1, 1000), 5)
}

export function registerPerfCommand(program: Command, deps: CliDeps): void {
  const perf = program.command('perf').description('measure produce, consume and end-to-end throughput and latency')

  producing(common(perf.command('produce').description('produce records as fast as possible, or at a target rate')), {
    lingerMs: 5,
    throughput: '-1',
  })
    .option('--num-records <n>', 'records to produce', intOption(1))
    .option('--duration <seconds>', 'produce for this long (with --num-records: whichever ends first)', secondsOption)
    .option('--producers <n>', 'concurrent producer loops, each with its own connections', intOption(1, 1000), 1)
    .option('--raw', 'send one pre-built batch per partition again and again (the broker ceiling)', false)
    .option('--transactional-id <id>', 'produce in transactions of this transactional id (one producer, acks all)')
    .option(
      '--transaction-duration-ms <ms>',
      'commit the transaction every this many ms (default 3000 with --transactional-id; alone it implies a default id)',
      intOption(1, INT32_MAX),
    )
    .action((opts) => execute(deps, (io) => runProduce(opts, io)))

  common(perf.command('consume').description('read the topic from the beginning, without a consumer group'))
    .option('--num-records <n>', 'records to read (default: up to the end offsets at start)', intOption(1))
    .option('--duration <seconds>', 'read for this long', secondsOption)
    .option('--fetch-size <bytes>', 'bytes per partition per Fetch', intOption(1, INT32_MAX), 1_048_576)
    .option('--fetch-max-bytes <bytes>', 'bytes per Fetch response', intOption(1, INT32_MAX), 52_428_800)
    .option('--timeout <ms>', 'fail after this long without new records', intOption(1), 10_000)
    .option(
      '--isolation <level>',
      'read_committed: up to the last stable offset, without aborted transactions',
      isolationOption,
      'read_uncommitted',
    )
    .action((opts) => execute(deps, (io) => runConsume(opts, io)))

  producing(common(perf.command('e2e').description('produce at a fixed rate and measure produce-to-consume latency')), {
    lingerMs: 0,
    throughput: '1000',
  })
    .option('--num-records <n>', 'records to send', intOption(1))
    .option('--duration <seconds>', 'send for this long', secondsOption)
    .option('--timeout <ms>', 'fail after this long without new records', intOption(1), 10_000)
    .action((opts) => execute(deps, (io) => runE2e(opts, io)))
}

/** Runs one perf command and exits with its code (see runTool). */
function execute(deps: CliDeps, run: (io: PerfIo) => Promise<void>): Promise<void> {
  return runTool(deps, 'perf', run)
}
