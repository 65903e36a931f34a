// The broker's ShareStatePersister (ports/shares.ts; Kafka's DefaultStatePersister with its
// PersisterStateManager): the one way the group coordinator and the share-partition leaders reach
// a share-partition's durable state, wherever its share coordinator is.
//
// Each call finds the key's `__share_group_state` partition (creating the topic on first use) and
// that partition's leader in the metadata: this broker — the local ShareCoordinator is called;
// another — the call goes to it over the inter-broker listener (inter-broker.ts, which batches a
// tick's calls per broker, API and group). The answers that mean "ask again, maybe elsewhere" —
// NOT_COORDINATOR, COORDINATOR_LOAD_IN_PROGRESS, COORDINATOR_NOT_AVAILABLE, NETWORK_EXCEPTION,
// REQUEST_TIMED_OUT, and no leader known yet — are retried every retryBackoffMs, with the leader
// looked up again, until timeoutMs have passed since the call; then the last such answer is
// returned. Any other answer (NONE, the fencing codes, INVALID_REQUEST, …) is returned as it is.
import type {
  SharePartitionKey,
  ShareStatePersister,
  ShareStateRead,
  ShareStateResult,
  ShareStateSummary,
  ShareStateWrite,
} from '../../ports/shares.js'
import type { ShareCoordinatorService } from '../../ports/share-coordinator.js'
import { ErrorCode, type ErrorName, KafkaError } from '../../protocol/errors.js'
import type { Clock } from '../../util/clock.js'
import type { ShareCoordinatorChannel } from './inter-broker.js'

export interface BrokerSharePersisterOptions {
  nodeId: number
  clock: Clock
  /** This broker's share coordinator. */
  local: ShareCoordinatorService
  /** The share coordinators of the other brokers. */
  remote: Pick<ShareCoordinatorChannel, 'initialize' | 'read' | 'write' | 'delete' | 'readSummary'>
  /** The leader of a `__share_group_state` partition (undefined or negative: none known). */
  leaderOf: (partition: number) => number | undefined
  /** Between attempts (Kafka's persister backs off from 100 ms). */
  retryBackoffMs: number
  /** How long a call keeps retrying. */
  timeoutMs: number
}

const RETRIABLE: ReadonlySet<number> = new Set(
  (
    [
      'NOT_COORDINATOR',
      'COORDINATOR_LOAD_IN_PROGRESS',
      'COORDINATOR_NOT_AVAILABLE',
      'NETWORK_EXCEPTION',
      'REQUEST_TIMED_OUT',
    ] as ErrorName[]
  ).map((n) => ErrorCode[n].code),
)

type Route = { local: true } | { local: false; nodeId: number }

export class BrokerSharePersister implements ShareStatePersister {
  private closed = false

  constructor(private readonly opts: BrokerSharePersisterOptions) {}

  initialize(key: SharePartitionKey, stateEpoch: number, startOffset: number): Promise<ShareStateResult> {
    return this.call(
      key,
      (e) => e,
      (r) =>
        r.local
          ? this.opts.local.initialize(key, stateEpoch, startOffset)
          : this.opts.remote.initialize(r.nodeId, key, stateEpoch, startOffset),
    )
  }

  read(key: SharePartitionKey, leaderEpoch: number): Promise<ShareStateRead> {
    return this.call(
      key,
      (e) => ({ ...e, stateEpoch: 0, startOffset: -1, stateBatches: [] }),
      (r) => (r.local ? this.opts.local.read(key, leaderEpoch) : this.opts.remote.read(r.nodeId, key, leaderEpoch)),
    )
  }

  write(key: SharePartitionKey, write: ShareStateWrite): Promise<ShareStateResult> {
    return this.call(
      key,
      (e) => e,
      (r) => (r.local ? this.opts.local.write(key, write) : this.opts.remote.write(r.nodeId, key, write)),
    )
  }

  delete(key: SharePartitionKey): Promise<ShareStateResult> {
    return this.call(
      key,
      (e) => e,
      (r) => (r.local ? this.opts.local.delete(key) : this.opts.remote.delete(r.nodeId, key)),
    )
  }

  readSummary(key: SharePartitionKey, leaderEpoch: number): Promise<ShareStateSummary> {
    return this.call(
      key,
      (e) => ({ ...e, stateEpoch: 0, leaderEpoch: 0, startOffset: -1, deliveryCompleteCount: -1 }),
      (r) => (r.local ? this.opts.local.readSummary(key, leaderEpoch) : this.opts.remote.readSummary(r.nodeId, key, leaderEpoch)),
    )
  }

  /** Stops retrying: calls under way answer their last error at their next attempt. */
  close(): void {
    this.closed = true
  }

  private async route(key: SharePartitionKey): Promise<Route | ShareStateResult> {
    try {
      await this.opts.local.ensureCoordinatorTopic()
    } catch (err) {
      const name = err instanceof KafkaError ? err.errorName : 'COORDINATOR_NOT_AVAILABLE'
      return { errorCode: ErrorCode[name].code, errorMessage: (err as Error).message }
    }
    const partition = this.opts.local.partitionFor(key)
    const leader = this.opts.leaderOf(partition)
    if (leader === undefined || leader < 0) {
      return { errorCode: ErrorCode.COORDINATOR_NOT_AVAILABLE.code, errorMessage: `__share_group_state-${partition} has no leader` }
    }
    return leader === this.opts.nodeId ? { local: true } : { local: false, nodeId: leader }
  }

  private async call<R extends ShareStateResult>(
    key: SharePartitionKey,
    failure: (e: ShareStateResult) => R,
    attempt: (route: Route) => Promise<R>,
  ): Promise<R> {
    const deadline = this.opts.clock.monotonic() + this.opts.timeoutMs
    for (;;) {
      const route = await this.route(key)
      const answer = 'errorCode' in route ? failure(route) : await attempt(route)
      if (!RETRIABLE.has(answer.errorCode) || this.closed || this.opts.clock.monotonic() + this.opts.retryBackoffMs > deadline)
        return answer
      await new Promise<void>((resolve) => this.opts.clock.setTimeout(resolve, this.opts.retryBackoffMs))
    }
  }
}
