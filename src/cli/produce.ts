// `tributary produce TOPIC`: records from stdin or a file, one per line, to a topic.
// The work is in produce/run.ts (reading, summary, errors) on src/client/producer.ts (batching,
// partitioning as the Java client does, retries); this file declares the options and the help.
//
// Signals: the first SIGINT/SIGTERM stops reading and sends what was read (runTool calls the
// command's onStop); a second one exits 1 at once — runTool exits, and the handler registered here
// first (so it runs first) reports how many records were read but not acknowledged.
import { type Command, Option } from 'commander'
import { collect, INT32_MAX, intOption, runTool, withConnectionOptions, withExamples, withJsonOption } from './common.js'
import { acksOption, COMPRESSION_TYPES, compressionOption } from './options.js'
import { type ProduceCliOptions, type ProduceState, runProduce } from './produce/run.js'
import type { CliDeps } from './deps.js'

export function registerProduceCommand(program: Command, deps: CliDeps): void {
  const cmd = program
    .command('produce')
    .description('write records to a topic, one per line, from stdin or a file')
    .argument('<topic>', 'topic to write to')
    .option('-f, --file <path>', "read records from this file instead of stdin ('-': stdin)")
    .option('--delimiter <string>', 'record delimiter; escapes \\n \\r \\t \\0 \\\\ \\xHH', '\\n')
    .option('-K, --key-separator <string>', 'the key is what precedes the first separator (lines without one get a null key)')
    .option('-H, --header <key=value>', 'header added to every record; repeatable', collect, [])
    .option(
      '-p, --partition <n>',
      'write every record to this partition (default: by key as the Java client, else sticky)',
      intOption(0, INT32_MAX),
    )
    .addOption(new Option('--acks <all|1|0>', 'acknowledgement to wait for').argParser(acksOption).default(-1, 'all'))
    .option('--compression <type>', `batch codec: ${COMPRESSION_TYPES.join(', ')}`, compressionOption, 'none')
    .option('--linger-ms <ms>', 'wait this long for a batch to fill before sending it', intOption(0, INT32_MAX), 5)
    .option('--batch-size <bytes>', 'largest batch per partition', intOption(1, INT32_MAX), 16_384)
    .option(
      '--delivery-timeout-ms <ms>',
      'give up on a record this long after it was read (retries included)',
      intOption(1, INT32_MAX),
      120_000,
    )
    .option('--progress', 'print a progress line every 2 s when stderr is not a terminal (a bar is drawn on a terminal anyway)', false)
  withJsonOption(withConnectionOptions(cmd, 'tributary-produce'))
  cmd.addHelpText(
    'after',
    '\nEach line (up to the delimiter) is one record, stored byte for byte; a trailing delimiter does not\n' +
      'make an empty record. Keyed records go to the partition the Java client would pick (murmur2).\n' +
      'A summary is printed on stderr at the end (with --json: one JSON object on stdout). Ctrl-C stops\n' +
      'reading and sends what was read; a second Ctrl-C exits at once. Exit code 0 when every record read\n' +
      'was stored, 1 when any was not, 2 for bad usage.',
  )
  withExamples(cmd, [
    'tributary produce events < events.txt',
    "echo 'hello' | tributary produce events",
    'tributary produce events --file users.tsv --key-separator "\\t" --header source=import',
    'find . -print0 | tributary produce paths --delimiter "\\0"',
    'tributary produce events --file big.log --json   # summary as JSON on stdout',
  ])
  cmd.action(async (topic: string, opts: ProduceCliOptions) => {
    const state: ProduceState = { read: 0, acked: 0, failed: 0 }
    let signals = 0
    const onSecondSignal = () => {
      if (++signals < 2) return
      const lost = state.read - state.acked - state.failed
      deps.stderr(
        `tributary produce: exiting at once: ${state.read} records read, ${state.acked} acknowledged, ` +
          `${state.failed} failed, ${lost} read but not acknowledged (they may or may not be stored)\n`,
      )
    }
    deps.onSignal('SIGINT', onSecondSignal)
    deps.onSignal('SIGTERM', onSecondSignal)
    await runTool(deps, 'produce', (io) => runProduce(topic, opts, io, state))
  })
}
