// The reading loop of `tributary consume`: without a group it reads the chosen partitions from the
// chosen start, touching no group at all (Metadata, ListOffsets and Fetch only); with --group it
// joins the group as a consumer (group-member.ts), reads what the group assigns from the committed
// offsets, commits what it printed every COMMIT_INTERVAL_MS, before each rejoin and at exit, and
// leaves the group on the way out.
//
// Positions: a partition's position is the offset after the last record printed (or after what
// the fetch skipped: control batches, records before the start). With --max-messages, or at an
// --exit-at-end boundary, the fetcher is moved back to the first record not printed, so the
// committed offset is exactly "everything printed", never more.
//
// Stopping: --max-messages reached, every partition at the end offsets read when it was assigned
// (--exit-at-end), or the first Ctrl-C (a Fetch in flight is abandoned; nothing it brought is
// printed). Then: commit, leave, "Processed N messages" on stderr, exit 0.
import { listOffsets, OffsetSpec } from '../../client/admin.js'
import type { KafkaClient } from '../../client/client.js'
import { type FetchedPartition, Fetcher, type TopicPartitionOffset } from '../../client/consumer.js'
import { ClientError } from '../../client/errors.js'
import { ConsumerGroupMember, partitionKey } from '../../client/group-member.js'
import { connect, type ToolIo, ToolError } from '../common.js'
import type { ConsumeSettings } from './options.js'
import { runShareConsume } from './share.js'
import { choosePartitions, describeStart, describeTopic, formatPartitions, resolveStart } from './start.js'

/** Kafka's auto.commit.interval.ms. */
const COMMIT_INTERVAL_MS = 5000

type Outcome = 'done' | 'stopped' | 'rejoin'

/** State of one run: what was printed, and where each assigned partition stands. */
class Reader {
  printed = 0
  /** Next offset per assigned partition. */
  readonly positions = new Map<number, number>()
  /** --exit-at-end: the end offset per partition, read when it was first assigned. */
  readonly ends = new Map<number, number>()
  readonly fetcher: Fetcher

  constructor(
    readonly s: ConsumeSettings,
    readonly io: ToolIo,
    readonly client: KafkaClient,
    readonly signal: AbortSignal,
  ) {
    this.fetcher = new Fetcher(client, {
      isolationLevel: s.isolation,
      autoOffsetReset: s.start.kind === 'earliest' ? 'earliest' : 'latest',
      onOffsetReset: (tp, from, to, policy) =>
        this.note(`offset ${from} of ${tp.topic}-${tp.partition} is out of range; reading from the ${policy} offset ${to} instead`),
    })
  }

  note(text: string): void {
    if (!this.s.quiet) this.io.stderr(`${text}\n`)
  }

  get full(): boolean {
    return this.printed >= this.s.maxMessages
  }

  /** Starts reading `starts` (partition → offset); partitions already at their end are not fetched. */
  async assign(starts: Map<number, number>): Promise<void> {
    this.positions.clear()
    for (const [p, o] of starts) this.positions.set(p, o)
    if (this.s.exitAtEnd) {
      const unknown = [...starts.keys()].filter((p) => !this.ends.has(p))
      if (unknown.length > 0) {
        const committed = this.s.isolation === 'read_committed'
        for (const [p, o] of await listOffsets(this.client, this.s.topic, unknown, OffsetSpec.Latest, committed)) this.ends.set(p, o)
      }
      await this.resetBeyondEnd()
    }
    this.reassign()
  }

  /**
   * --exit-at-end: a start beyond the end would count as "reached the end" without a Fetch ever
   * seeing that it is out of range; reset it here as the Fetch would have.
   */
  private async resetBeyondEnd(): Promise<void> {
    const beyond = [...this.positions].filter(([p, o]) => o > this.ends.get(p)!).map(([p]) => p)
    if (beyond.length === 0) return
    const policy = this.s.start.kind === 'earliest' ? 'earliest' : 'latest'
    const to = policy === 'earliest' ? await listOffsets(this.client, this.s.topic, beyond, OffsetSpec.Earliest) : this.ends
    for (const p of beyond) {
      const from = this.positions.get(p)!
      this.positions.set(p, to.get(p)!)
      this.note(`offset ${from} of ${this.s.topic}-${p} is out of range; reading from the ${policy} offset ${to.get(p)} instead`)
    }
  }

  /** Every assigned partition reached its end (--exit-at-end). */
  private atEnd(): boolean {
    if (!this.s.exitAtEnd) return false
    for (const [p, o] of this.positions) if (o < this.ends.get(p)!) return false
    return true
  }

  private reassign(): void {
    const active: TopicPartitionOffset[] = []
    for (const [partition, offset] of this.positions) {
      if (this.s.exitAtEnd && offset >= this.ends.get(partition)!) continue
      active.push({ topic: this.s.topic, partition, offset })
    }
    this.fetcher.assign(active)
  }

  /**
   * Fetches and prints until done, stopped, or (with a group) until `rejoin()` says the member
   * must rejoin; `tick` runs between rounds (periodic commits).
   */
  async pump(rejoin: () => boolean, tick: () => Promise<void>): Promise<Outcome> {
    for (;;) {
      if (this.signal.aborted) return 'stopped'
      if (this.full || this.atEnd()) return 'done'
      if (rejoin()) return 'rejoin'
      const fetched = await this.fetcher.poll(this.signal)
      if (this.signal.aborted) return 'stopped'
      this.print(fetched)
      await tick()
    }
  }

  private print(fetched: FetchedPartition[]): void {
    const out: Buffer[] = []
    let ended = false
    for (const f of fetched) {
      const end = this.s.exitAtEnd ? this.ends.get(f.partition)! : Number.POSITIVE_INFINITY
      let cut: number | undefined
      for (const r of f.records) {
        if (this.full || r.offset >= end) {
          cut = r.offset
          break
        }
        out.push(this.s.format(r))
        this.printed++
      }
      if (cut !== undefined) this.fetcher.seek(f.topic, f.partition, cut)
      if (f.nextOffset >= end || cut !== undefined) ended = true
    }
    if (out.length > 0) this.io.stdout(Buffer.concat(out))
    for (const p of this.fetcher.positions()) this.positions.set(p.partition, p.offset)
    if (ended && this.s.exitAtEnd) this.reassign()
  }

  /** Positions that differ from `committed`, as OffsetCommit wants them. */
  uncommitted(committed: Map<number, number>): TopicPartitionOffset[] {
    const out: TopicPartitionOffset[] = []
    for (const [partition, offset] of this.positions) {
      if (committed.get(partition) !== offset) out.push({ topic: this.s.topic, partition, offset })
    }
    return out
  }
}

/**
 * Runs `tributary consume`; resolves with the exit code. `output`, when given, is the stream behind
 * io.stdout: once it closes (`… | head`), reading stops as on Ctrl-C.
 */
export async function runConsume(s: ConsumeSettings, io: ToolIo, output?: NodeJS.WritableStream): Promise<number> {
  if (s.shareGroup !== null) return runShareConsume(s, io, output)
  const stop = new AbortController()
  io.onStop(() => stop.abort())
  const onOutputError = () => stop.abort()
  output?.on('error', onOutputError)
  const client = await connect(s.connection)
  let reader: Reader | undefined
  try {
    const info = await describeTopic(client, s.topic)
    const partitions = choosePartitions(info, s.partitions)
    reader = new Reader(s, io, client, stop.signal)
    const code = s.group === null ? await standalone(reader, partitions) : await inGroup(reader, s.group)
    io.stderr(`Processed ${reader.printed} messages\n`)
    return code
  } catch (err) {
    if (reader) io.stderr(`Processed ${reader.printed} messages\n`)
    throw explain(err, s)
  } finally {
    await client.close()
    output?.off('error', onOutputError)
  }
}

async function standalone(r: Reader, partitions: number[]): Promise<number> {
  const starts = await resolveStart(r.client, r.s.topic, partitions, r.s.start, r.s.isolation === 'read_committed')
  await r.assign(starts)
  r.note(
    `Reading ${r.s.topic} partition${partitions.length === 1 ? '' : 's'} ${formatPartitions(partitions)} from ${describeStart(r.s.start)}${until(r.s)}`,
  )
  await r.pump(
    () => false,
    async () => {},
  )
  return 0
}

async function inGroup(r: Reader, groupId: string): Promise<number> {
  const { s, client, signal } = r
  const member = new ConsumerGroupMember({
    client,
    groupId,
    topics: [s.topic],
    onRejoinNeeded: (reason) => r.note(`Group ${groupId}: ${reason}; rejoining`),
    requireStable: s.isolation === 'read_committed',
  })
  let committed = new Map<number, number>()
  let lastCommitAt = performance.now()
  let code = 0
  const commit = async (final: boolean): Promise<void> => {
    const offsets = r.uncommitted(committed)
    if (offsets.length === 0 || member.memberId === '') return
    try {
      await member.commit(offsets)
      for (const o of offsets) committed.set(o.partition, o.offset)
    } catch (err) {
      if (!(err instanceof ClientError)) throw err
      r.note(`Group ${groupId}: offsets not committed (${err.message})${final ? '' : '; records since the last commit may be read again'}`)
      if (final) code = 1
    }
    lastCommitAt = performance.now()
  }
  try {
    for (;;) {
      let joined: Awaited<ReturnType<ConsumerGroupMember['join']>>
      try {
        joined = await member.join(signal)
      } catch (err) {
        if (signal.aborted) break
        throw err
      }
      const assigned = joined.assignment.filter((tp) => tp.topic === s.topic).map((tp) => tp.partition)
      r.note(`Group ${groupId}: generation ${joined.generationId}, assigned ${s.topic} partitions ${formatPartitions(assigned)}${until(s)}`)
      const stored = await member.committed(assigned.map((partition) => ({ topic: s.topic, partition })))
      committed = new Map()
      for (const p of assigned) {
        const o = stored.get(partitionKey(s.topic, p))
        if (o !== undefined) committed.set(p, o)
      }
      const fresh = assigned.filter((p) => !committed.has(p))
      const starts = new Map([...committed, ...(await resolveStart(client, s.topic, fresh, s.start, s.isolation === 'read_committed'))])
      await r.assign(starts)
      const outcome = await r.pump(
        () => member.rejoinNeeded,
        async () => {
          if (performance.now() - lastCommitAt >= COMMIT_INTERVAL_MS) await commit(false)
        },
      )
      if (outcome !== 'rejoin') break
      await commit(false) // eager protocol: commit before giving the partitions up
    }
  } finally {
    try {
      await commit(true)
      await member.leave()
    } catch (err) {
      r.note(
        `Group ${groupId}: leaving failed (${err instanceof Error ? err.message : String(err)}); the group notices after the session timeout`,
      )
    } finally {
      member.close()
    }
  }
  return code
}

function until(s: ConsumeSettings): string {
  if (s.exitAtEnd) return ', until the end offsets as of now'
  return ' (Ctrl-C to stop)'
}

/** Client failures a user can act on, as ToolErrors with what to do. */
function explain(err: unknown, s: ConsumeSettings): unknown {
  if (!(err instanceof ClientError)) return err
  switch (err.code) {
    case 'UNKNOWN_TOPIC_OR_PARTITION':
      return new ToolError(`topic '${s.topic}' does not exist (${err.detail})`, 'list topics with: tributary topic list')
    case 'UNSUPPORTED_COMPRESSION_TYPE':
      return new ToolError(err.detail, 'tributary cannot decompress this codec yet; read the topic with kcat, or produce it uncompressed')
    case 'INCONSISTENT_GROUP_PROTOCOL':
      return new ToolError(
        `group '${s.group}' is used by consumers of another kind or assignor (${err.detail})`,
        'use another --group, or one whose members offer range or roundrobin',
      )
    case 'GROUP_AUTHORIZATION_FAILED':
      return new ToolError(`not authorized to use group '${s.group}'`, 'ask for Read on the group')
    default:
      return err
  }
}
