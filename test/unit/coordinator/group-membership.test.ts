// The classic group protocol's state machine on a virtual clock: joins, syncs, heartbeats,
// session expiry, leaving, static membership, and the races between them.
import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { encodeSubscription } from '../../../src/protocol/consumer-protocol.js'
import { assignAll, code, flush, formGroup, joinParams, REBALANCE_MS, SESSION_MS, setup, TestMember, track } from './group-helpers.js'

describe('group coordinator: join, sync, heartbeat', () => {
  it('forms a 3-member group: one generation, one leader with every member, assignments relayed byte for byte', async () => {
    const h = await setup()
    const members = [new TestMember(h, 'g'), new TestMember(h, 'g'), new TestMember(h, 'g')]
    const generation = await formGroup(h, members)
    assert.equal(generation, 1)
    assert.equal(h.coordinator.groupState('g'), 'Stable')
    const leader = members.find((m) => m.isLeader)!
    assert.equal(leader.lastJoin!.members.length, 3)
    assert.equal(leader.lastJoin!.protocolName, 'range')
    assert.equal(leader.lastJoin!.protocolType, 'consumer')
    for (const m of members) {
      if (m !== leader) assert.deepEqual(m.lastJoin!.members, [], 'followers get no member list')
      assert.deepEqual(m.assignment, Buffer.from(`assigned:${m.memberId}`))
      assert.match(m.memberId, /^client-[0-9a-f-]{36}$/)
    }
    // Heartbeats keep everyone in, well past the session timeout.
    for (let i = 0; i < 5; i++) {
      await h.advance(SESSION_MS / 2)
      for (const m of members) assert.equal(m.heartbeat(), 0)
    }
    assert.equal(h.coordinator.groupState('g'), 'Stable')
    // The leader's assignment was stored before anyone got it.
    const stored = h.persistence.lastGroup('g')!
    assert.equal(stored.generationId, 1)
    assert.equal(stored.members.length, 3)
    for (const m of stored.members) assert.deepEqual(m.assignment, Buffer.from(`assigned:${m.memberId}`))
  })

  it('holds followers until the leader syncs, and answers nobody before the assignment is stored', async () => {
    const h = await setup()
    const [a, b] = [new TestMember(h, 'g'), new TestMember(h, 'g')]
    const ja = await a.joinFully()
    const jb = await b.joinFully()
    await h.advance(0)
    assert.ok(ja.done && jb.done)
    const [leader, follower] = a.isLeader ? [a, b] : [b, a]
    const fs = follower.sync()
    await flush()
    assert.equal(fs.done, false, 'the follower waits for the leader')
    h.persistence.pause()
    const ls = leader.sync(assignAll(leader.lastJoin!))
    await flush()
    assert.equal(ls.done, false, 'the leader waits for its store')
    assert.equal(fs.done, false)
    h.persistence.resume()
    await flush()
    assert.ok(ls.done && fs.done)
    assert.deepEqual(fs.value!.assignment, Buffer.from(`assigned:${follower.memberId}`))
  })

  it('removes a member whose session expires, and the others rebalance without it', async () => {
    const h = await setup()
    const members = [new TestMember(h, 'g'), new TestMember(h, 'g'), new TestMember(h, 'g')]
    await formGroup(h, members)
    const [gone, ...alive] = members
    // Only the survivors heartbeat.
    await h.advance(SESSION_MS / 2)
    for (const m of alive) assert.equal(m.heartbeat(), 0)
    await h.advance(SESSION_MS / 2 + 1)
    assert.equal(h.coordinator.groupState('g'), 'PreparingRebalance')
    for (const m of alive) assert.equal(m.heartbeat(), code('REBALANCE_IN_PROGRESS'))
    assert.equal(gone!.heartbeat(), code('UNKNOWN_MEMBER_ID'))
    const joins = alive.map((m) => m.join())
    await flush()
    for (const j of joins) {
      assert.ok(j.done)
      assert.equal(j.value!.errorCode, 0)
      assert.equal(j.value!.generationId, 2)
    }
    const leader = alive.find((m) => m.isLeader)!
    assert.deepEqual(new Set(leader.lastJoin!.members.map((m) => m.memberId)), new Set(alive.map((m) => m.memberId)))
  })

  it('elects a new leader when the leader leaves', async () => {
    const h = await setup()
    const members = [new TestMember(h, 'g'), new TestMember(h, 'g'), new TestMember(h, 'g')]
    await formGroup(h, members)
    const leader = members.find((m) => m.isLeader)!
    const rest = members.filter((m) => m !== leader)
    assert.equal(leader.leave(), 0)
    assert.equal(h.coordinator.groupState('g'), 'PreparingRebalance')
    for (const m of rest) assert.equal(m.heartbeat(), code('REBALANCE_IN_PROGRESS'))
    const joins = rest.map((m) => m.join())
    await flush()
    for (const j of joins) assert.equal(j.value!.errorCode, 0)
    const newLeader = rest.find((m) => m.isLeader)
    assert.ok(newLeader, 'a remaining member leads')
    assert.notEqual(rest[0]!.leader, leader.memberId)
    assert.equal(newLeader.lastJoin!.members.length, 2)
  })

  it('empties the group when the last member leaves, and stores the empty generation', async () => {
    const h = await setup()
    const m = new TestMember(h, 'g')
    await formGroup(h, [m])
    assert.equal(m.leave(), 0)
    await flush()
    assert.equal(h.coordinator.groupState('g'), 'Empty')
    const stored = h.persistence.lastGroup('g')!
    assert.equal(stored.generationId, 2)
    assert.deepEqual(stored.members, [])
    assert.equal(stored.protocolName, null)
  })

  it('MEMBER_ID_REQUIRED: a v4+ member without id gets one, is pending, and is accepted when it rejoins', async () => {
    const h = await setup()
    const first = track(h.coordinator.joinGroup(joinParams('g', { clientId: 'svc' })))
    await flush()
    assert.equal(first.value!.errorCode, code('MEMBER_ID_REQUIRED'))
    const id = first.value!.memberId
    assert.match(id, /^svc-[0-9a-f-]{36}$/)
    assert.equal(h.coordinator.groupState('g'), 'Empty', 'a pending member does not start a rebalance')
    const second = track(h.coordinator.joinGroup(joinParams('g', { clientId: 'svc', memberId: id })))
    await h.advance(0)
    assert.equal(second.value!.errorCode, 0)
    assert.equal(second.value!.memberId, id)
    assert.equal(second.value!.leader, id)
    // v0–3 clients get an id and a generation at once.
    const h2 = await setup()
    const old = track(h2.coordinator.joinGroup(joinParams('g', { requireKnownMemberId: false })))
    await h2.advance(0)
    assert.equal(old.value!.errorCode, 0)
  })

  it('forgets a pending member id after the session timeout', async () => {
    const h = await setup()
    const first = track(h.coordinator.joinGroup(joinParams('g')))
    await flush()
    const id = first.value!.memberId
    await h.advance(SESSION_MS + 1)
    const late = track(h.coordinator.joinGroup(joinParams('g', { memberId: id })))
    await flush()
    assert.equal(late.value!.errorCode, code('UNKNOWN_MEMBER_ID'))
  })

  it('concurrent joins during a rebalance: nobody gets a spurious UNKNOWN_MEMBER_ID', async () => {
    const h = await setup()
    const a = new TestMember(h, 'g')
    const b = new TestMember(h, 'g')
    await formGroup(h, [a, b])
    // Two new members arrive while the existing ones are heartbeating.
    const c = new TestMember(h, 'g')
    const d = new TestMember(h, 'g')
    const cFirst = c.join()
    const dFirst = d.join()
    await flush()
    assert.equal(cFirst.value!.errorCode, code('MEMBER_ID_REQUIRED'))
    assert.equal(dFirst.value!.errorCode, code('MEMBER_ID_REQUIRED'))
    const cJoin = c.join()
    await flush()
    assert.equal(h.coordinator.groupState('g'), 'PreparingRebalance')
    // a and b learn of the rebalance from their heartbeats and rejoin; d rejoins with its id
    // while the rebalance is in progress.
    const seen: number[] = [a.heartbeat(), b.heartbeat()]
    const aJoin = a.join()
    const dJoin = d.join()
    const bJoin = b.join()
    await flush()
    for (const j of [aJoin, bJoin, cJoin, dJoin]) {
      assert.ok(j.done, 'every held JoinGroup is answered once all have rejoined')
      seen.push(j.value!.errorCode)
    }
    const leader = [a, b, c, d].find((m) => m.isLeader)!
    const followers = [a, b, c, d].filter((m) => m !== leader)
    const syncs = followers.map((m) => m.sync())
    syncs.push(leader.sync(assignAll(leader.lastJoin!)))
    await flush()
    for (const s of syncs) seen.push(s.value!.errorCode)
    for (const m of [a, b, c, d]) seen.push(m.heartbeat())
    assert.ok(!seen.includes(code('UNKNOWN_MEMBER_ID')), `answers: ${seen}`)
    assert.ok(
      seen.every((c) => c === 0 || c === code('REBALANCE_IN_PROGRESS')),
      `answers: ${seen}`,
    )
    assert.equal(h.coordinator.groupState('g'), 'Stable')
    assert.equal(leader.lastJoin!.members.length, 4)
  })

  it('a member joining while the group completes its rebalance is taken into the next one', async () => {
    const h = await setup()
    const a = new TestMember(h, 'g')
    const b = new TestMember(h, 'g')
    await formGroup(h, [a, b])
    // c joins and a, b rejoin: generation 2 is being completed when e arrives.
    const c = new TestMember(h, 'g')
    await c.joinFully()
    assert.equal(h.coordinator.groupState('g'), 'PreparingRebalance')
    const ja = a.join()
    const jb = b.join()
    await flush()
    assert.equal(h.coordinator.groupState('g'), 'CompletingRebalance')
    assert.ok(ja.done && jb.done)
    const e = new TestMember(h, 'g')
    const ejoin = await e.joinFully()
    await flush()
    assert.equal(h.coordinator.groupState('g'), 'PreparingRebalance')
    // The members of the completed generation are told to rejoin, not that they are unknown.
    const s = a.sync()
    await flush()
    assert.equal(s.value!.errorCode, code('REBALANCE_IN_PROGRESS'))
    assert.equal(b.heartbeat(), code('REBALANCE_IN_PROGRESS'))
    const all = [a.join(), b.join(), c.join(), ejoin]
    await flush()
    for (const j of all) assert.equal(j.value?.errorCode, 0)
  })

  it('removes a member that joined but never synced, after its rebalance timeout', async () => {
    const h = await setup()
    const a = new TestMember(h, 'g')
    const b = new TestMember(h, 'g')
    const ja = await a.joinFully()
    const jb = await b.joinFully()
    await h.advance(0)
    assert.ok(ja.done && jb.done)
    const leader = a.isLeader ? a : b
    const silent = a.isLeader ? b : a
    const ls = leader.sync(assignAll(leader.lastJoin!))
    await flush()
    assert.equal(ls.value!.errorCode, 0)
    assert.equal(h.coordinator.groupState('g'), 'Stable')
    // The silent one heartbeats but never sends SyncGroup.
    for (let t = 0; t < REBALANCE_MS; t += SESSION_MS / 2) {
      silent.heartbeat()
      leader.heartbeat()
      await h.advance(SESSION_MS / 2)
    }
    assert.equal(h.coordinator.groupState('g'), 'PreparingRebalance')
    assert.equal(silent.heartbeat(), code('UNKNOWN_MEMBER_ID'))
  })

  it('completes a rebalance at the rebalance timeout without members that did not rejoin', async () => {
    const h = await setup()
    const a = new TestMember(h, 'g')
    const b = new TestMember(h, 'g')
    await formGroup(h, [a, b])
    const c = new TestMember(h, 'g')
    const cj = await c.joinFully()
    const aj = a.join()
    // b keeps heartbeating but never rejoins.
    for (let t = 0; t < REBALANCE_MS - 1; t += 5000) {
      assert.equal(b.heartbeat(), code('REBALANCE_IN_PROGRESS'))
      await h.advance(Math.min(5000, REBALANCE_MS - 1 - t))
    }
    assert.equal(aj.done, false)
    await h.advance(1)
    assert.ok(aj.done && cj.done)
    assert.equal(aj.value!.errorCode, 0)
    const leader = a.isLeader ? a : c
    assert.deepEqual(new Set(leader.lastJoin!.members.map((m) => m.memberId)), new Set([a.memberId, c.memberId]))
    assert.equal(b.heartbeat(), code('UNKNOWN_MEMBER_ID'))
  })

  it('delays the first rebalance by group.initial.rebalance.delay.ms, extended while members arrive', async () => {
    const h = await setup({ initialRebalanceDelayMs: 3000 })
    const a = new TestMember(h, 'g')
    const ja = await a.joinFully()
    await h.advance(2000)
    const b = new TestMember(h, 'g')
    const jb = await b.joinFully()
    await h.advance(1000) // the first delay ends, but b arrived during it: one more delay
    assert.equal(ja.done, false)
    await h.advance(2999)
    assert.equal(ja.done, false)
    await h.advance(1)
    assert.ok(ja.done && jb.done)
    assert.equal(ja.value!.generationId, 1)
    assert.equal((a.isLeader ? a : b).lastJoin!.members.length, 2)
  })

  it('selects the protocol every member supports, by the members’ preferences', async () => {
    const h = await setup()
    const sub = encodeSubscription(['t'])
    const m1 = new TestMember(h, 'g', {
      protocols: [
        { name: 'cooperative-sticky', metadata: sub },
        { name: 'range', metadata: sub },
      ],
    })
    const m2 = new TestMember(h, 'g', {
      protocols: [
        { name: 'range', metadata: sub },
        { name: 'roundrobin', metadata: sub },
      ],
    })
    const m3 = new TestMember(h, 'g', {
      protocols: [
        { name: 'roundrobin', metadata: sub },
        { name: 'range', metadata: sub },
      ],
    })
    await formGroup(h, [m1, m2, m3])
    assert.equal(m1.lastJoin!.protocolName, 'range', 'the only protocol all three support')
  })

  it('releases a held JoinGroup when its connection closes; the new member goes back to pending and is waited for until its session timeout', async () => {
    const h = await setup()
    const a = new TestMember(h, 'g')
    await formGroup(h, [a])
    const first = track(h.coordinator.joinGroup(joinParams('g')))
    await flush()
    const id = first.value!.memberId
    const conn = new AbortController()
    const held = track(h.coordinator.joinGroup(joinParams('g', { memberId: id, signal: conn.signal })))
    await flush()
    assert.equal(held.done, false)
    conn.abort()
    await flush()
    assert.ok(held.done, 'released')
    // As Kafka, the rebalance waits for the pending member to come back with its id...
    const aj = a.join()
    await flush()
    assert.equal(aj.done, false, 'held while a member is pending')
    // ...until its session timeout drops it; then a alone completes the rebalance.
    await h.advance(SESSION_MS)
    await flush()
    assert.equal(aj.value!.errorCode, 0)
    assert.deepEqual(
      a.lastJoin!.members.map((m) => m.memberId),
      [a.memberId],
    )
    // Dropped, its id is no longer known: the client must join afresh.
    const retry = track(h.coordinator.joinGroup(joinParams('g', { memberId: id })))
    await flush()
    assert.equal(retry.value!.errorCode, 25) // UNKNOWN_MEMBER_ID
  })
})

describe('group coordinator: static membership (KIP-345)', () => {
  it('a static member restarting gets its assignment back without a rebalance', async () => {
    const h = await setup()
    const s1 = new TestMember(h, 'g', { groupInstanceId: 'i1' })
    const s2 = new TestMember(h, 'g', { groupInstanceId: 'i2' })
    const generation = await formGroup(h, [s1, s2])
    const before = s2.assignment
    assert.match(s1.memberId, /^i1-/)
    // s2 restarts: a new process, no member id.
    const restarted = new TestMember(h, 'g', { groupInstanceId: 'i2' })
    const j = restarted.join()
    await flush()
    assert.equal(j.value!.errorCode, 0)
    assert.equal(j.value!.generationId, generation, 'same generation')
    assert.notEqual(restarted.memberId, s2.memberId)
    assert.equal(h.coordinator.groupState('g'), 'Stable')
    assert.notEqual(j.value!.leader, restarted.memberId, 'it does not run the assignor')
    const s = restarted.sync()
    await flush()
    assert.deepEqual(s.value!.assignment, before)
    assert.equal(s1.heartbeat(), 0, 'the other member sees no rebalance')
    assert.equal(restarted.heartbeat(), 0)
    // The old member id is fenced.
    assert.equal(s2.heartbeat(), code('FENCED_INSTANCE_ID'))
    // The replacement was stored.
    assert.ok(h.persistence.lastGroup('g')!.members.some((m) => m.memberId === restarted.memberId && m.groupInstanceId === 'i2'))
  })

  it('FENCED_INSTANCE_ID for an old member id of a static instance, on every API', async () => {
    const h = await setup()
    const s1 = new TestMember(h, 'g', { groupInstanceId: 'i1' })
    await formGroup(h, [s1])
    const oldId = s1.memberId
    const again = new TestMember(h, 'g', { groupInstanceId: 'i1' })
    await again.join().promise
    const fenced = code('FENCED_INSTANCE_ID')
    s1.memberId = oldId
    assert.equal(s1.heartbeat(), fenced)
    assert.equal((await s1.sync().promise).errorCode, fenced)
    assert.equal((await s1.join().promise).errorCode, fenced)
    assert.equal(s1.leave(), fenced)
    const commit = await h.coordinator.commitOffsets({
      groupId: 'g',
      generationId: s1.generationId,
      memberId: oldId,
      groupInstanceId: 'i1',
      retentionTimeMs: -1,
      offsets: [{ topic: 't', partition: 0, offset: 1, leaderEpoch: -1, metadata: null }],
      apiVersion: 8,
    })
    assert.deepEqual(commit, [fenced])
  })

  it('a held JoinGroup of the replaced member id is answered FENCED_INSTANCE_ID', async () => {
    const h = await setup()
    const s1 = new TestMember(h, 'g', { groupInstanceId: 'i1' })
    const s2 = new TestMember(h, 'g', { groupInstanceId: 'i2' })
    await formGroup(h, [s1, s2])
    const held = s1.join({ protocols: [{ name: 'range', metadata: encodeSubscription(['t', 'u']) }] })
    await flush()
    assert.equal(held.done, false)
    const replacement = new TestMember(h, 'g', { groupInstanceId: 'i1' })
    const rj = replacement.join()
    await flush()
    assert.equal(held.value!.errorCode, code('FENCED_INSTANCE_ID'))
    const s2j = s2.join()
    await flush()
    assert.ok(rj.done && s2j.done)
    assert.equal(rj.value!.errorCode, 0)
  })

  it('a static member can be removed by instance id alone (admin LeaveGroup)', async () => {
    const h = await setup()
    const s1 = new TestMember(h, 'g', { groupInstanceId: 'i1' })
    await formGroup(h, [s1])
    const r = h.coordinator.leaveGroup('g', [
      { memberId: '', groupInstanceId: 'i1', reason: 'admin' },
      { memberId: '', groupInstanceId: 'nope', reason: null },
    ])
    assert.deepEqual(
      r.members.map((m) => m.errorCode),
      [0, code('UNKNOWN_MEMBER_ID')],
    )
    await flush()
    assert.equal(h.coordinator.groupState('g'), 'Empty')
  })
})
