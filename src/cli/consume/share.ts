// `tributary consume TOPIC --share-group G`: reads a topic as a member of a share group (KIP-932,
// a queue): the records go to whichever member acquires them, so several of these commands (or
// Java share consumers) in one group split a topic's records between them, even on one partition.
//
// Each record printed is acknowledged with --ack (accept by default; release hands it back to
// the group to be delivered again, with a higher delivery count; reject archives it, never to be
// delivered again). The acknowledgements ride on the next ShareFetch. With --max-messages N the
// records acquired beyond the N-th are released, not printed, so another member gets them.
//
// Where a share group starts is the group's setting (share.auto.offset.reset, Kafka's default
// latest), not a flag; --from-beginning and the other start options are refused here.
//
// Stopping: --max-messages reached, or the first Ctrl-C (or the output closing, `… | head`): the
// acknowledgements made are sent, the share sessions closed (what was acquired and not printed
// goes back to the group at once), the group left, and "Processed N messages" written on stderr.
import { ClientError } from '../../client/errors.js'
import { ShareConsumer } from '../../client/share-consumer.js'
import { connect, type ToolIo, ToolError } from '../common.js'
import { splitBootstrap } from '../options.js'
import type { ConsumeSettings } from './options.js'
import { describeTopic, formatPartitions } from './start.js'

export async function runShareConsume(s: ConsumeSettings, io: ToolIo, output?: NodeJS.WritableStream): Promise<number> {
  const groupId = s.shareGroup!
  const note = (text: string) => {
    if (!s.quiet) io.stderr(`${text}\n`)
  }
  const stop = new AbortController()
  io.onStop(() => stop.abort())
  const onOutputError = () => stop.abort()
  output?.on('error', onOutputError)
  let printed = 0
  let failedAcks = 0
  const consumer = new ShareConsumer({
    bootstrap: splitBootstrap(s.connection.bootstrapServer),
    groupId,
    clientId: s.connection.clientId,
    requestTimeoutMs: s.connection.requestTimeoutMs,
    onAssignment: (list) => {
      const mine = list.filter((p) => p.topic === s.topic).map((p) => p.partition)
      note(`Share group ${groupId}: assigned ${s.topic} partitions ${formatPartitions(mine)}`)
    },
    onAcknowledgement: (r) => {
      if (r.error === null) return
      failedAcks += r.offsets.length
      note(`Share group ${groupId}: acknowledgement of ${r.topic}-${r.partition} offsets ${formatPartitions(r.offsets)} failed: ${r.error}`)
    },
  })
  try {
    const client = await connect(s.connection)
    try {
      await describeTopic(client, s.topic) // a missing topic is an error, not a silent wait
    } finally {
      await client.close()
    }
    await consumer.subscribe([s.topic])
    note(`Share group ${groupId}: member ${consumer.memberId}, reading ${s.topic}, acknowledging with ${s.ack} (Ctrl-C to stop)`)
    while (!stop.signal.aborted && printed < s.maxMessages) {
      const records = await consumer.poll()
      const out: Buffer[] = []
      for (const r of records) {
        if (stop.signal.aborted || printed >= s.maxMessages) {
          consumer.acknowledge(r, 'release')
          continue
        }
        out.push(s.format(r))
        printed++
        consumer.acknowledge(r, s.ack)
      }
      if (out.length > 0) io.stdout(Buffer.concat(out))
    }
    await consumer.close()
    io.stderr(`Processed ${printed} messages\n`)
    if (failedAcks > 0) note(`${failedAcks} acknowledgement${failedAcks === 1 ? '' : 's'} failed: those records may be delivered again`)
    return 0
  } catch (err) {
    await consumer.close().catch(() => {})
    io.stderr(`Processed ${printed} messages\n`)
    throw explainShare(err, s)
  } finally {
    output?.off('error', onOutputError)
  }
}

function explainShare(err: unknown, s: ConsumeSettings): unknown {
  if (!(err instanceof ClientError)) return err
  switch (err.code) {
    case 'UNSUPPORTED_VERSION':
      return new ToolError(
        `the broker does not serve share groups (${err.detail})`,
        'share groups need Kafka 4.1+ with share.version=1, or a Tributary broker with share groups',
      )
    case 'GROUP_AUTHORIZATION_FAILED':
      return new ToolError(`not authorized to use share group '${s.shareGroup}'`, 'ask for Read on the group')
    case 'INCONSISTENT_GROUP_PROTOCOL':
    case 'GROUP_ID_NOT_FOUND':
      return new ToolError(`group '${s.shareGroup}' is not a share group (${err.detail})`, 'use another --share-group')
    default:
      return err
  }
}
