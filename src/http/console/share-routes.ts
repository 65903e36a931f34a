// The console's share groups (KIP-932 queues), under /console/api/share-groups — REST v3 has no
// resource for them:
//
// - GET /console/api/share-groups: every share group with its state and member count.
// - GET /console/api/share-groups/{group}: its members (client, host, partitions) and, per
//   partition it has state for, the share-partition start offset and the lag
//   (DescribeShareGroupOffsets v1), as kafka-share-groups.sh --describe shows them.
// - POST /console/api/share-groups/{group}/reset {topic, to: earliest|latest|<offset>}: sets the
//   start offset of every partition of the topic (AlterShareGroupOffsets), as
//   kafka-share-groups.sh --reset-offsets --execute does; refused (409) while the group has
//   members, as Kafka refuses it (NON_EMPTY_GROUP).
import type { FastifyInstance, FastifyReply } from 'fastify'
import { listGroups } from '../../client/admin-groups.js'
import { alterShareGroupOffsets, describeShareGroup, listShareGroupOffsets } from '../../client/admin-group-types.js'
import { listOffsets, OffsetSpec } from '../../client/admin.js'
import type { KafkaClient } from '../../client/client.js'
import { ClientError } from '../../client/errors.js'

export interface ConsoleRouteKit {
  kafka(): Promise<KafkaClient>
  fail(reply: FastifyReply, status: number, message: string): FastifyReply
  statusOf(err: unknown): number
}

/** Where a reset moves each partition of a topic: earliest, latest, or an offset kept within the log. */
export async function resetTargets(client: KafkaClient, topic: string, to: 'earliest' | 'latest' | number) {
  const [earliest, latest] = await Promise.all([
    listOffsets(client, topic, null, OffsetSpec.Earliest),
    listOffsets(client, topic, null, OffsetSpec.Latest),
  ])
  return [...latest.keys()]
    .sort((a, b) => a - b)
    .map((p) => {
      const lo = earliest.get(p) ?? 0
      const hi = latest.get(p) ?? lo
      const at = to === 'earliest' ? lo : to === 'latest' ? hi : Math.min(Math.max(to, lo), hi)
      return { topic, partition: p, offset: at }
    })
}

/** The body of a reset: {topic, to}, or the reason it is refused. */
export function resetRequest(
  body: { topic?: unknown; to?: unknown } | undefined,
): { topic: string; to: 'earliest' | 'latest' | number } | string {
  const { topic, to } = body ?? {}
  if (typeof topic !== 'string' || topic === '') return 'topic is required'
  if (to !== 'earliest' && to !== 'latest' && !(typeof to === 'number' && Number.isInteger(to) && to >= 0))
    return 'to must be "earliest", "latest" or an offset'
  return { topic, to }
}

export function registerShareGroupRoutes(app: FastifyInstance, kit: ConsoleRouteKit): void {
  const { kafka, fail, statusOf } = kit

  app.get('/console/api/share-groups', async (_req, reply) => {
    try {
      const c = await kafka()
      const listed = (await listGroups(c)).filter((g) => g.groupType === 'share')
      return await Promise.all(
        listed.map(async (g) => {
          const d = await describeShareGroup(c, g.groupId)
          return { group_id: g.groupId, state: d?.state ?? g.state, members: d?.members.length ?? 0 }
        }),
      )
    } catch (err) {
      return fail(reply, statusOf(err), err instanceof Error ? err.message : String(err))
    }
  })

  app.get<{ Params: { group: string } }>('/console/api/share-groups/:group', async (req, reply) => {
    try {
      const c = await kafka()
      const [d, offsets] = await Promise.all([describeShareGroup(c, req.params.group), listShareGroupOffsets(c, req.params.group)])
      if (d === null) return fail(reply, 404, `there is no share group ${req.params.group}`)
      return {
        group_id: d.groupId,
        state: d.state,
        members: d.members.map((m) => ({
          member_id: m.memberId,
          client_id: m.clientId,
          host: m.clientHost,
          partitions: m.assignment.flatMap((a) => a.partitions.map((p) => `${a.topic}-${p}`)),
        })),
        offsets: offsets.map((o) => ({ topic: o.topic, partition: o.partition, start_offset: o.startOffset, lag: o.lag, error: o.error })),
        total_lag: offsets.reduce((n, o) => n + Math.max(0, o.lag), 0),
      }
    } catch (err) {
      return fail(reply, statusOf(err), err instanceof Error ? err.message : String(err))
    }
  })

  app.post<{ Params: { group: string }; Body: { topic?: unknown; to?: unknown } }>(
    '/console/api/share-groups/:group/reset',
    async (req, reply) => {
      const r = resetRequest(req.body)
      if (typeof r === 'string') return fail(reply, 400, r)
      try {
        const c = await kafka()
        const targets = await resetTargets(c, r.topic, r.to)
        const outcomes = await alterShareGroupOffsets(
          c,
          req.params.group,
          targets.map((t) => ({ topic: t.topic, partition: t.partition, startOffset: t.offset })),
        )
        const failed = outcomes.filter((o) => o.error !== null)
        if (failed.length > 0)
          return fail(reply, 409, `reset refused: ${failed.map((f) => `${f.topic}-${f.partition} ${f.error}`).join(', ')}`)
        return { group: req.params.group, topic: r.topic, offsets: targets.map(({ partition, offset }) => ({ partition, offset })) }
      } catch (err) {
        if (err instanceof ClientError && err.code === 'NON_EMPTY_GROUP')
          return fail(reply, 409, `share group ${req.params.group} has active members: stop them before resetting its offsets`)
        return fail(reply, statusOf(err), err instanceof Error ? err.message : String(err))
      }
    },
  )
}
