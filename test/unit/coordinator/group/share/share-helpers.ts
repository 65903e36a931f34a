// Helpers for the share group tests: a group coordinator on a ManualClock over the in-memory
// `__consumer_offsets` and share state, and heartbeat requests.
import { DEFAULT_GROUP_COORDINATOR_CONFIG, GroupCoordinator } from '../../../../../src/coordinator/group/group-coordinator.js'
import { MemoryGroupPersistence } from '../../../../../src/coordinator/group/memory-persistence.js'
import type { TopicInfo } from '../../../../../src/coordinator/group/consumer/consumer-groups.js'
import type { ShareGroupHeartbeatRequestData } from '../../../../../src/protocol/messages/76-share-group-heartbeat.js'
import { ManualClock } from '../../../../../src/util/clock.js'
import { silentLogger } from '../../../../../src/util/logger.js'
import { electAll, flush } from '../../group-helpers.js'
import { MemoryShareState } from './memory-share-state.js'

export const T_ID = 'AQIDBAUGBwgJCgsMDQ4PEA'
export const U_ID = 'EA8ODQwLCgkIBwYFBAMCAQ'
export const client = { clientId: 'share-client', clientHost: '/127.0.0.1' }

export const hb = (
  memberId: string,
  memberEpoch: number,
  o: Partial<ShareGroupHeartbeatRequestData> = {},
): ShareGroupHeartbeatRequestData => ({
  groupId: 'g',
  memberId,
  memberEpoch,
  rackId: null,
  subscribedTopicNames: memberEpoch === 0 ? ['T'] : null,
  ...o,
})

export interface ShareHarness {
  clock: ManualClock
  persistence: MemoryGroupPersistence
  state: MemoryShareState
  topics: Map<string, TopicInfo>
  coordinator: GroupCoordinator
  hw: Map<string, number>
  advance(ms: number): Promise<void>
  /** A new coordinator over the same log and state, elected for every partition (a restart or failover). */
  restart(): Promise<GroupCoordinator>
}

export async function shareSetup(o: { maxSize?: number; sessionTimeoutMs?: number; noState?: boolean } = {}): Promise<ShareHarness> {
  const clock = new ManualClock()
  const persistence = new MemoryGroupPersistence()
  const state = new MemoryShareState()
  const topics = new Map<string, TopicInfo>([
    ['T', { id: T_ID, partitions: 3 }],
    ['U', { id: U_ID, partitions: 1 }],
  ])
  const hw = new Map<string, number>()
  const make = () =>
    new GroupCoordinator({
      clock,
      logger: silentLogger,
      persistence,
      config: DEFAULT_GROUP_COORDINATOR_CONFIG,
      topics: () => topics,
      ...(o.noState ? {} : { shareState: state }),
      shareGroups: {
        config: { sessionTimeoutMs: o.sessionTimeoutMs ?? 45_000, heartbeatIntervalMs: 5000, maxSize: o.maxSize ?? 200 },
        highWatermark: (topic, partition) => hw.get(`${topic}:${partition}`) ?? null,
      },
    })
  const h: ShareHarness = {
    clock,
    persistence,
    state,
    topics,
    hw,
    coordinator: make(),
    advance: async (ms) => {
      clock.advance(ms)
      await flush()
    },
    restart: async () => {
      h.coordinator.close()
      h.coordinator = make()
      await electAll(h.coordinator, persistence)
      return h.coordinator
    },
  }
  await electAll(h.coordinator, persistence)
  return h
}
