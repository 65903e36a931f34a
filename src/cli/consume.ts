// `tributary consume TOPIC`: prints a topic's records, like kafka-console-consumer.sh and kcat -C.
//
//   tributary consume events                         # new records from now on, values one per line
//   tributary consume events --from-beginning --exit-at-end
//   tributary consume events --offset -10 --format '%p:%o %k=%v\n'
//   tributary consume events --group billing --json  # share the partitions with the group's members
//   tributary consume jobs --share-group workers     # a share group (KIP-932): share the records
//
// Without --group nothing but Metadata, ListOffsets and Fetch is sent: no group is created or
// disturbed. The options are parsed in consume/options.ts, the output formats are in
// consume/format.ts, and the loop (with the group membership) is consume/run.ts; share groups are
// consume/share.ts.
import { type Command, Option } from 'commander'
import { collect, intOption, runTool, withConnectionOptions, withExamples, withJsonOption } from './common.js'
import { ENCODINGS } from './consume/format.js'
import {
  ackOption,
  type ConsumeCliOptions,
  encodingOption,
  isolationOption,
  offsetOption,
  settingsFrom,
  timestampOption,
} from './consume/options.js'
import { runConsume } from './consume/run.js'
import type { CliDeps } from './deps.js'

const FORMAT_HELP = `
Output:
  By default each record's value is printed on its own line. --format TEMPLATE prints what the
  template says (nothing is added: end it with \\n for one record per line):
    %k key  %v value  %t topic  %p partition  %o offset  %T timestamp (ms since the epoch)
    %h headers as k=v,k2=v2  %% a literal %  \\n newline  \\t tab  \\r carriage return  \\\\ backslash
  A null key or value prints as nothing. --json prints one object per line:
    {"topic","partition","offset","timestamp","key","value","headers":[{"key","value"}]}
  with null for a null key or value. --encoding base64|hex prints binary keys and values safely.

Start position (per partition):
  default               the end: only records produced from now on (like kafka-console-consumer)
  --from-beginning      the earliest offset (same as --offset earliest)
  --offset N            offset N; --offset -N: the last N records; --offset earliest|latest
  --timestamp T         the first record at or after T (ms since the epoch, or an ISO date)
  With --group the group's committed offsets come first; partitions without one start as above.
  An offset out of range restarts at the earliest offset with --from-beginning, else at the end.

Transactions: --isolation read_committed (Kafka's isolation.level) reads up to each partition's
last stable offset and drops the records of aborted transactions; "the end" (the default start,
--exit-at-end) is then the last stable offset. The default, read_uncommitted, prints every record.

Share groups (KIP-932): --share-group G reads as a member of share group G: the records are
split between the group's members, even on one partition, and each is acknowledged with --ack
(accept: done; release: deliver it again, maybe to another member; reject: never again). Where
the group starts is its share.auto.offset.reset config (default latest), so --from-beginning,
--offset, --timestamp, --partition, --exit-at-end and --isolation are refused. Ctrl-C sends the
acknowledgements, hands back what was not printed and leaves the group.

Stopping: --follow (the default) waits for new records until Ctrl-C; --exit-at-end stops when
every partition reached the end it had at the start; --max-messages N stops after N records.
Ctrl-C commits (with --group), leaves the group and prints "Processed N messages" on stderr.`

export function registerConsumeCommand(program: Command, deps: CliDeps): void {
  const cmd = program
    .command('consume')
    .description('print the records of a topic (tail it, read it from the beginning, or join a consumer group)')
    .argument('<topic>', 'topic to read')
    .option('--from-beginning', 'start at the earliest offset', false)
    .option('--offset <N|earliest|latest|-N>', 'start offset in each partition; -N = the last N records', offsetOption)
    .option('--timestamp <ms|ISO date>', 'start at the first record at or after this time', timestampOption)
    .addOption(new Option('--partition <n[,n...]>', 'read only these partitions (repeatable)').argParser(collect).default([], 'all'))
    .option('--group <id>', 'consume as a member of this consumer group, committing offsets')
    .option('--share-group <id>', 'consume as a member of this share group (a queue: each record goes to one member)')
    .option('--ack <type>', 'with --share-group: acknowledge each printed record with accept, release or reject', ackOption, 'accept')
    .option('--max-messages <n>', 'stop after printing n records', intOption(1))
    .option('--follow', 'keep waiting for new records until Ctrl-C (the default)')
    .option('--exit-at-end', 'stop once every partition reached the end offset it had at the start', false)
    .option('--format <template>', 'output template, e.g. "%k\\t%v\\n" (see below)')
    .option('--encoding <encoding>', `how keys and values become text: ${ENCODINGS.join(', ')}`, encodingOption, 'utf8')
    .option('-q, --quiet', 'no notes on stderr (where reading starts, group assignments)', false)
    .option(
      '--isolation <level>',
      'read_uncommitted: every record; read_committed: only records of committed transactions (up to the last stable offset)',
      isolationOption,
      'read_uncommitted',
    )
  withJsonOption(cmd)
  withConnectionOptions(cmd)
  cmd.addHelpText('after', FORMAT_HELP)
  withExamples(cmd, [
    'tributary consume events',
    'tributary consume events --from-beginning --exit-at-end',
    'tributary consume events --offset -10 --partition 0,1',
    "tributary consume events --timestamp 2024-05-01T12:00:00Z --format '%T %k=%v\\n'",
    'tributary consume events --group billing --max-messages 100 --json',
    'tributary consume events --from-beginning --isolation read_committed',
    'tributary consume jobs --share-group workers --max-messages 10',
    'tributary consume jobs --share-group workers --ack release --json',
  ])
  cmd.action((topic: string, opts: ConsumeCliOptions) =>
    runTool(deps, 'consume', async (io) => runConsume(settingsFrom(topic, opts), io, process.stdout)),
  )
}
