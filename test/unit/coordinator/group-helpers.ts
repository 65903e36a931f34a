// Helpers for the group coordinator's unit tests: a coordinator on a ManualClock over the
// in-memory persistence, and small clients that join, sync and heartbeat. Nothing sleeps:
// time moves only through clock.advance(), and `flush()` lets promise callbacks run.
import assert from 'node:assert/strict'
import { encodeSubscription } from '../../../src/protocol/consumer-protocol.js'
import {
  DEFAULT_GROUP_COORDINATOR_CONFIG,
  GroupCoordinator,
  type GroupCoordinatorConfig,
} from '../../../src/coordinator/group/group-coordinator.js'
import { MemoryGroupPersistence } from '../../../src/coordinator/group/memory-persistence.js'
import type { CommitOffsetsParams, JoinGroupParams, JoinGroupResult, OffsetToCommit, SyncGroupResult } from '../../../src/ports/groups.js'
import { ErrorCode, type ErrorName } from '../../../src/protocol/errors.js'
import { ManualClock } from '../../../src/util/clock.js'
import { silentLogger } from '../../../src/util/logger.js'

export const code = (name: ErrorName): number => ErrorCode[name].code

/** Lets every pending promise callback run (no wall-clock wait). */
export const flush = (): Promise<void> => new Promise((resolve) => setImmediate(resolve))

export const SESSION_MS = 10_000
export const REBALANCE_MS = 30_000

export interface Harness {
  clock: ManualClock
  persistence: MemoryGroupPersistence
  coordinator: GroupCoordinator
  /** Moves the virtual clock, then lets promise callbacks run. */
  advance(ms: number): Promise<void>
}

/**
 * A coordinator that owns every partition of the persistence (elected at leader epoch 0, as the
 * broker elects them on a single node), unless `elect: false`.
 */
export async function setup(
  config: Partial<GroupCoordinatorConfig> = {},
  persistence = new MemoryGroupPersistence(),
  opts: { elect?: boolean } = {},
): Promise<Harness> {
  const clock = new ManualClock()
  const coordinator = new GroupCoordinator({
    clock,
    logger: silentLogger,
    persistence,
    config: { ...DEFAULT_GROUP_COORDINATOR_CONFIG, initialRebalanceDelayMs: 0, minSessionTimeoutMs: 1000, ...config },
  })
  if (opts.elect !== false) await electAll(coordinator, persistence)
  return {
    clock,
    persistence,
    coordinator,
    advance: async (ms) => {
      clock.advance(ms)
      await flush()
    },
  }
}

/** Elects the coordinator for every partition of the persistence; resolves once all are loaded. */
export async function electAll(coordinator: GroupCoordinator, persistence: MemoryGroupPersistence, leaderEpoch = 0): Promise<void> {
  await Promise.all(Array.from({ length: persistence.partitionCount }, (_, p) => coordinator.onElection(p, leaderEpoch)))
}

/** A promise whose outcome can be looked at without awaiting it. */
export interface Tracked<T> {
  readonly promise: Promise<T>
  readonly done: boolean
  readonly value: T | undefined
}

export function track<T>(promise: Promise<T>): Tracked<T> {
  const t = { promise, done: false, value: undefined as T | undefined }
  promise.then((v) => {
    t.done = true
    t.value = v
  })
  return t
}

export function joinParams(groupId: string, o: Partial<JoinGroupParams> & { topics?: string[] } = {}): JoinGroupParams {
  const { topics, ...rest } = o
  return {
    groupId,
    memberId: '',
    groupInstanceId: null,
    clientId: 'client',
    clientHost: '/127.0.0.1',
    sessionTimeoutMs: SESSION_MS,
    rebalanceTimeoutMs: REBALANCE_MS,
    protocolType: 'consumer',
    protocols: [{ name: 'range', metadata: encodeSubscription(topics ?? ['t']) }],
    requireKnownMemberId: true,
    reason: null,
    ...rest,
  }
}

/** OffsetCommit v8 without group membership (generation -1, no member), as admin tools commit. */
export function commitParams(groupId: string, offsets: OffsetToCommit[], o: Partial<CommitOffsetsParams> = {}): CommitOffsetsParams {
  return { groupId, generationId: -1, memberId: '', groupInstanceId: null, retentionTimeMs: -1, apiVersion: 8, ...o, offsets }
}

/** A client-side view of one member, as a consumer's coordinator code keeps it. */
export class TestMember {
  memberId = ''
  generationId = -1
  leader = ''
  lastJoin: JoinGroupResult | undefined
  assignment: Buffer | undefined

  constructor(
    readonly h: Harness,
    readonly groupId: string,
    readonly opts: Partial<JoinGroupParams> & { topics?: string[] } = {},
  ) {}

  /** Sends JoinGroup (with the id it has) and returns the held request. */
  join(extra: Partial<JoinGroupParams> = {}): Tracked<JoinGroupResult> {
    const p = this.h.coordinator.joinGroup(joinParams(this.groupId, { ...this.opts, memberId: this.memberId, ...extra }))
    return track(
      p.then((r) => {
        this.lastJoin = r
        if (r.errorCode === 0 || r.errorCode === code('MEMBER_ID_REQUIRED')) this.memberId = r.memberId
        if (r.errorCode === 0) {
          this.generationId = r.generationId
          this.leader = r.leader
        }
        return r
      }),
    )
  }

  /** JoinGroup, answering MEMBER_ID_REQUIRED by rejoining with the given id (KIP-394). */
  async joinFully(): Promise<Tracked<JoinGroupResult>> {
    const first = this.join()
    await flush()
    if (first.done && first.value!.errorCode === code('MEMBER_ID_REQUIRED')) return this.join()
    return first
  }

  get isLeader(): boolean {
    return this.memberId !== '' && this.leader === this.memberId
  }

  sync(assignments: Array<{ memberId: string; assignment: Buffer }> = []): Tracked<SyncGroupResult> {
    return track(
      this.h.coordinator
        .syncGroup({
          groupId: this.groupId,
          generationId: this.generationId,
          memberId: this.memberId,
          groupInstanceId: this.opts.groupInstanceId ?? null,
          protocolType: null,
          protocolName: null,
          assignments,
        })
        .then((r) => {
          if (r.errorCode === 0) this.assignment = r.assignment
          return r
        }),
    )
  }

  heartbeat(): number {
    return this.h.coordinator.heartbeat({
      groupId: this.groupId,
      generationId: this.generationId,
      memberId: this.memberId,
      groupInstanceId: this.opts.groupInstanceId ?? null,
    })
  }

  leave(): number {
    const r = this.h.coordinator.leaveGroup(this.groupId, [
      { memberId: this.memberId, groupInstanceId: this.opts.groupInstanceId ?? null, reason: null },
    ])
    return r.errorCode || r.members[0]!.errorCode
  }
}

/** Assigns each member a buffer naming it, as a leader would, from the leader's JoinGroup answer. */
export function assignAll(leaderJoin: JoinGroupResult): Array<{ memberId: string; assignment: Buffer }> {
  return leaderJoin.members.map((m) => ({ memberId: m.memberId, assignment: Buffer.from(`assigned:${m.memberId}`) }))
}

/**
 * Brings the members into one Stable generation: everyone (re)joins, the leader assigns, all
 * sync. Returns the generation.
 */
export async function formGroup(h: Harness, members: TestMember[]): Promise<number> {
  const joins = []
  for (const m of members) joins.push(await m.joinFully())
  await h.advance(0) // the initial delay (0 in these tests) runs on the clock
  for (const j of joins) {
    assert.ok(j.done, 'every JoinGroup is answered')
    assert.equal(j.value!.errorCode, 0)
  }
  const generation = members[0]!.generationId
  for (const m of members) assert.equal(m.generationId, generation)
  const leader = members.find((m) => m.isLeader)
  assert.ok(leader, 'one member leads')
  const syncs = members.map((m) => (m === leader ? m.sync(assignAll(m.lastJoin!)) : m.sync()))
  await flush()
  for (const s of syncs) {
    assert.ok(s.done, 'every SyncGroup is answered')
    assert.equal(s.value!.errorCode, 0)
  }
  return generation
}
