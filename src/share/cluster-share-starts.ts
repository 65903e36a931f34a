// Where every share group of the cluster stands on a partition, for tributary.share.delete.acknowledged:
// the smallest start offset any share group has stored for it, asked of the group coordinators with
// Tributary's own client (ListGroups of type share on every broker, then DescribeShareGroupOffsets
// of each). A share-partition leader deletes a queue topic's records only below what every share
// group has acknowledged — also the groups that have not fetched from this leader since it took the
// partition over, whose state it does not hold. Any failure (a coordinator away, an error per
// partition) rejects, and nothing is deleted then: the next acknowledgement asks again.
import { listGroups } from '../client/admin-groups.js'
import { listShareGroupOffsets } from '../client/admin-group-types.js'
import { KafkaClient } from '../client/client.js'
import type { ClientSecurity } from '../client/security.js'

export class ClusterShareStarts {
  private client: Promise<KafkaClient> | undefined

  constructor(
    private readonly bootstrap: () => string[],
    private readonly clientId: string,
    private readonly security?: ClientSecurity,
  ) {}

  /** The smallest stored start offset of any share group on topic-partition; +Infinity when none has state there. */
  async smallestStart(topic: string, partition: number): Promise<number> {
    const client = await this.connect()
    let min = Number.POSITIVE_INFINITY
    const groups = (await listGroups(client)).filter((g) => g.groupType === 'share')
    for (const g of groups) {
      for (const o of await listShareGroupOffsets(client, g.groupId)) {
        if (o.topic !== topic || o.partition !== partition) continue
        if (o.error !== null) throw new Error(`share group ${g.groupId} on ${topic}-${partition}: ${o.error}`)
        if (o.startOffset >= 0 && o.startOffset < min) min = o.startOffset
      }
    }
    return min
  }

  async close(): Promise<void> {
    const c = this.client
    this.client = undefined
    if (c) await (await c.catch(() => null))?.close()
  }

  private connect(): Promise<KafkaClient> {
    this.client ??= KafkaClient.connect({
      bootstrap: this.bootstrap(),
      clientId: this.clientId,
      ...(this.security ? { security: this.security } : {}),
    })
    return this.client.catch((err) => {
      this.client = undefined
      throw err
    })
  }
}
