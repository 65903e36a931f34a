// An in-memory ShareStatePersister (ports/shares.ts) for the group coordinator's unit tests: the
// state of each share-partition as the share coordinator would keep it, with the calls recorded.
import {
  type SharePartitionKey,
  sharePartitionKeyString,
  type ShareStatePersister,
  type ShareStateRead,
  type ShareStateResult,
  type ShareStateSummary,
  type ShareStateWrite,
} from '../../../../../src/ports/shares.js'

interface Stored {
  stateEpoch: number
  leaderEpoch: number
  startOffset: number
  deliveryCompleteCount: number
}

export class MemoryShareState implements ShareStatePersister {
  readonly states = new Map<string, Stored>()
  readonly calls: string[] = []
  /** Topic ids the share coordinator no longer knows (deleted topics): UNKNOWN_TOPIC_OR_PARTITION. */
  readonly goneTopics = new Set<string>()

  async initialize(key: SharePartitionKey, stateEpoch: number, startOffset: number): Promise<ShareStateResult> {
    this.calls.push(`initialize ${sharePartitionKeyString(key)} ${stateEpoch} ${startOffset}`)
    this.states.set(sharePartitionKeyString(key), { stateEpoch, leaderEpoch: 0, startOffset, deliveryCompleteCount: 0 })
    return { errorCode: 0 }
  }

  async read(key: SharePartitionKey): Promise<ShareStateRead> {
    const s = this.states.get(sharePartitionKeyString(key))
    return { errorCode: 0, stateEpoch: s?.stateEpoch ?? 0, startOffset: s?.startOffset ?? -1, stateBatches: [] }
  }

  async write(key: SharePartitionKey, w: ShareStateWrite): Promise<ShareStateResult> {
    const s = this.states.get(sharePartitionKeyString(key))
    this.states.set(sharePartitionKeyString(key), {
      stateEpoch: w.stateEpoch,
      leaderEpoch: w.leaderEpoch,
      startOffset: w.startOffset === -1 ? (s?.startOffset ?? -1) : w.startOffset,
      deliveryCompleteCount: w.deliveryCompleteCount,
    })
    return { errorCode: 0 }
  }

  async delete(key: SharePartitionKey): Promise<ShareStateResult> {
    this.calls.push(`delete ${sharePartitionKeyString(key)}`)
    if (this.goneTopics.has(key.topicId)) return { errorCode: 3, errorMessage: 'This server does not host this topic-partition.' }
    this.states.delete(sharePartitionKeyString(key))
    return { errorCode: 0 }
  }

  async readSummary(key: SharePartitionKey): Promise<ShareStateSummary> {
    const s = this.states.get(sharePartitionKeyString(key))
    if (s === undefined) return { errorCode: 0, stateEpoch: 0, leaderEpoch: -1, startOffset: -1, deliveryCompleteCount: -1 }
    return { errorCode: 0, ...s }
  }
}
