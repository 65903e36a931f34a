// Unit tests of src/security/quota/client-quotas.ts on a manual clock and an in-memory store:
// Kafka's eight-level precedence, per-user and per-client measures, AlterClientQuotas and
// DescribeClientQuotas validation and filters, change events from another broker, the controller
// mutation quota and the connection creation rate.
import assert from 'node:assert/strict'
import { test } from 'node:test'
import { ErrorCode } from '../../../src/protocol/errors.js'
import type { StoreChange } from '../../../src/ports/metadata-store.js'
import { userPrincipal } from '../../../src/network/principal.js'
import { ClientQuotas } from '../../../src/security/quota/client-quotas.js'
import { ManualClock } from '../../../src/util/clock.js'
import { silentLogger } from '../../../src/util/logger.js'

function memoryStore() {
  const entries = new Map<string, string>()
  const listeners: Array<(c: StoreChange) => void> = []
  return {
    getSecurityEntries: () => entries,
    async setSecurityEntries(_kind: string, e: Readonly<Record<string, string | null>>) {
      for (const [k, v] of Object.entries(e)) {
        if (v === null) entries.delete(k)
        else entries.set(k, v)
        for (const l of listeners) l({ kind: 'security', entry: 'quota', key: k })
      }
    },
    onChange: (l: (c: StoreChange) => void) => void listeners.push(l),
  }
}

const WINDOWS = { samples: 11, windowMs: 1000, controllerSamples: 11, controllerWindowMs: 1000 }

function setup() {
  const clock = new ManualClock()
  const store = memoryStore()
  const quotas = new ClientQuotas(store as never, WINDOWS, clock, silentLogger)
  return { clock, store, quotas }
}

type Part = { entityType: string; entityName: string | null }
const user = (n: string | null): Part => ({ entityType: 'user', entityName: n })
const client = (n: string | null): Part => ({ entityType: 'client-id', entityName: n })

async function set(q: ClientQuotas, entity: Part[], key: string, value: number) {
  const [r] = await q.alter([{ entity, ops: [{ key, value, remove: false }] }], false)
  assert.equal(r!.errorCode, 0, r!.errorMessage ?? '')
}

/** The quota that applies, read back from the throttle a 10 s burst at 1000 units/s earns. */
function throttleOf(q: ClientQuotas, clock: ManualClock, u: string, c: string): number {
  clock.advance(60_000) // past every window: a fresh measure
  return q.record('produce', userPrincipal(u), c, (10_000 * 1000) / 100) // 100 000 units
}

test("Kafka's precedence: user+client, user+default client, user, default user+client, defaults, client, default client", async () => {
  const { quotas, clock } = setup()
  // Quota q → a burst of 100 000 over 10 s is 10 000/s; throttle = (10 000 − q)/q × 10 000 ms.
  const expect = (q: number) => Math.round(((10_000 - q) / q) * 10_000)
  assert.equal(throttleOf(quotas, clock, 'alice', 'app'), 0, 'no quota, no throttle')
  const levels: Array<[Part[], number]> = [
    [[client(null)], 1000],
    [[client('app')], 2000],
    [[user(null)], 3000],
    [[user(null), client(null)], 4000],
    [[user(null), client('app')], 5000],
    [[user('alice')], 6000],
    [[user('alice'), client(null)], 7000],
    [[user('alice'), client('app')], 8000],
  ]
  for (const [entity, q] of levels) {
    await set(quotas, entity, 'producer_byte_rate', q)
    assert.equal(throttleOf(quotas, clock, 'alice', 'app'), expect(q), JSON.stringify(entity))
  }
  // Removing the most specific one falls back to the next.
  await quotas.alter([{ entity: [user('alice'), client('app')], ops: [{ key: 'producer_byte_rate', value: 0, remove: true }] }], false)
  assert.equal(throttleOf(quotas, clock, 'alice', 'app'), expect(7000))
  // Other users and clients fall to the levels that name them.
  assert.equal(throttleOf(quotas, clock, 'bob', 'app'), expect(5000))
  assert.equal(throttleOf(quotas, clock, 'bob', 'other'), expect(4000))
})

test('a default quota limits each client on its own; a user quota all its clients together', async () => {
  const { quotas, clock } = setup()
  await set(quotas, [client(null)], 'producer_byte_rate', 10_000)
  const p = userPrincipal('ANONYMOUS')
  assert.equal(quotas.record('produce', p, 'a', 100_000), 0)
  assert.equal(quotas.record('produce', p, 'b', 100_000), 0, 'b has its own measure')
  assert.ok(quotas.record('produce', p, 'a', 100_000) > 0, 'a is over')
  clock.advance(60_000)
  await set(quotas, [user('ANONYMOUS')], 'producer_byte_rate', 10_000)
  assert.equal(quotas.record('produce', p, 'a', 100_000), 0)
  assert.ok(quotas.record('produce', p, 'b', 100_000) > 0, 'the user quota is shared by its clients')
})

test('request_percentage counts handler milliseconds as percent of a thread, bounded to one window', async () => {
  const { quotas } = setup()
  await set(quotas, [client('busy')], 'request_percentage', 10)
  const p = userPrincipal('ANONYMOUS')
  assert.equal(quotas.record('request', p, 'busy', 500), 0) // 50 %·s over 10 s = 5 %
  const t = quotas.record('request', p, 'busy', 5000) // 550 %·s / 10 s = 55 %
  assert.equal(t, 1000)
})

test('the fetch cap is the consumer quota over samples − 1 windows', async () => {
  const { quotas } = setup()
  assert.equal(quotas.fetchBytesCap(userPrincipal('ANONYMOUS'), 'c'), Infinity)
  await set(quotas, [client('c')], 'consumer_byte_rate', 1024)
  assert.equal(quotas.fetchBytesCap(userPrincipal('ANONYMOUS'), 'c'), 10_240)
})

test("AlterClientQuotas validation: Kafka's errors per entity, the valid ones written", async () => {
  const { quotas } = setup()
  const bad = (code: number, message: RegExp) => ({ code, message })
  const cases: Array<[Part[], Array<{ key: string; value: number; remove: boolean }>, { code: number; message: RegExp }]> = [
    [[], [{ key: 'producer_byte_rate', value: 1, remove: false }], bad(42, /Invalid empty client quota entity/)],
    [
      [{ entityType: 'group', entityName: 'g' }],
      [{ key: 'producer_byte_rate', value: 1, remove: false }],
      bad(42, /Unhandled client quota entity type: group/),
    ],
    [[user('a'), user('b')], [{ key: 'producer_byte_rate', value: 1, remove: false }], bad(42, /duplicate entity entry user/)],
    [[user('')], [{ key: 'producer_byte_rate', value: 1, remove: false }], bad(42, /Empty user not supported/)],
    [
      [user('a'), { entityType: 'ip', entityName: '1.2.3.4' }],
      [{ key: 'connection_creation_rate', value: 1, remove: false }],
      bad(42, /IP entity should/),
    ],
    [[user('u1')], [{ key: 'consumer_byte_rat', value: 1, remove: false }], bad(42, /Invalid configuration key consumer_byte_rat/)],
    [[user('u2')], [{ key: 'producer_byte_rate', value: -1, remove: false }], bad(42, /Quota producer_byte_rate must be greater than 0/)],
    [[user('u3')], [{ key: 'producer_byte_rate', value: 1.5, remove: false }], bad(42, /producer_byte_rate cannot be a fractional value/)],
    [
      [user('u4')],
      [{ key: 'connection_creation_rate', value: 5, remove: false }],
      bad(42, /Invalid configuration key connection_creation_rate/),
    ],
    [
      [{ entityType: 'ip', entityName: null }],
      [{ key: 'connection_creation_rate', value: 3e9, remove: false }],
      bad(42, /too large for an INT/),
    ],
    [
      [user('u5')],
      [
        { key: 'producer_byte_rate', value: 1, remove: false },
        { key: 'producer_byte_rate', value: 2, remove: false },
      ],
      bad(42, /Duplicate quota key producer_byte_rate/),
    ],
  ]
  const results = await quotas.alter(
    [
      ...cases.map(([entity, ops]) => ({ entity, ops })),
      { entity: [user('ok')], ops: [{ key: 'request_percentage', value: 12.5, remove: false }] },
    ],
    false,
  )
  cases.forEach(([, , want], i) => {
    assert.equal(results[i]!.errorCode, want.code, `case ${i}`)
    assert.match(results[i]!.errorMessage ?? '', want.message, `case ${i}`)
  })
  assert.equal(results.at(-1)!.errorCode, 0)
  assert.deepEqual(quotas.describe([], false), [{ entity: [user('ok')], values: [{ key: 'request_percentage', value: 12.5 }] }])
  // A repeated entity in one request.
  const dup = await quotas.alter(
    [
      { entity: [user('x')], ops: [{ key: 'producer_byte_rate', value: 1, remove: false }] },
      { entity: [user('x')], ops: [{ key: 'consumer_byte_rate', value: 1, remove: false }] },
    ],
    false,
  )
  assert.equal(dup[1]!.errorCode, ErrorCode.INVALID_REQUEST.code)
  assert.match(dup[1]!.errorMessage!, /Ignoring duplicate entity/)
})

test('validate_only writes nothing; removing the last key removes the entity', async () => {
  const { quotas } = setup()
  const [r] = await quotas.alter([{ entity: [client('v')], ops: [{ key: 'producer_byte_rate', value: 10, remove: false }] }], true)
  assert.equal(r!.errorCode, 0)
  assert.deepEqual(quotas.describe([], false), [])
  await set(quotas, [client('v')], 'producer_byte_rate', 10)
  await quotas.alter([{ entity: [client('v')], ops: [{ key: 'producer_byte_rate', value: 0, remove: true }] }], false)
  assert.deepEqual(quotas.describe([], false), [])
})

test('DescribeClientQuotas filters: exact, default, specified, strict; bad filters refused', async () => {
  const { quotas } = setup()
  await set(quotas, [user('alice')], 'producer_byte_rate', 1)
  await set(quotas, [user('alice'), client('app')], 'producer_byte_rate', 2)
  await set(quotas, [user(null)], 'producer_byte_rate', 3)
  await set(quotas, [client('app')], 'producer_byte_rate', 4)
  const names = (components: Array<{ entityType: string; matchType: number; match: string | null }>, strict: boolean) =>
    quotas
      .describe(components, strict)
      .map((e) => e.entity.map((p) => `${p.entityType}=${p.entityName ?? '<default>'}`).join(','))
      .sort()
  assert.deepEqual(names([{ entityType: 'user', matchType: 0, match: 'alice' }], false), ['user=alice', 'user=alice,client-id=app'])
  assert.deepEqual(names([{ entityType: 'user', matchType: 0, match: 'alice' }], true), ['user=alice'])
  assert.deepEqual(names([{ entityType: 'user', matchType: 1, match: null }], false), ['user=<default>'])
  assert.deepEqual(names([{ entityType: 'client-id', matchType: 2, match: null }], false), ['client-id=app', 'user=alice,client-id=app'])
  assert.deepEqual(names([], true), [])
  assert.equal(names([], false).length, 4)
  const refused = (components: Array<{ entityType: string; matchType: number; match: string | null }>, code: number, msg: RegExp) =>
    assert.throws(
      () => quotas.describe(components, false),
      (err: { code: number; message: string }) => err.code === code && msg.test(err.message),
    )
  refused([{ entityType: 'user', matchType: 0, match: null }], 42, /MATCH_TYPE_EXACT, but set match string to null/)
  refused([{ entityType: 'user', matchType: 1, match: 'x' }], 42, /MATCH_TYPE_DEFAULT, but also specified a match string/)
  refused([{ entityType: 'user', matchType: 7, match: null }], 42, /Unknown match type 7/)
  refused([{ entityType: 'group', matchType: 2, match: null }], 35, /Unsupported entity type group/)
  refused([{ entityType: '', matchType: 2, match: null }], 42, /Invalid empty entity type/)
  refused(
    [
      { entityType: 'user', matchType: 2, match: null },
      { entityType: 'user', matchType: 1, match: null },
    ],
    42,
    /cannot appear more than once/,
  )
  refused(
    [
      { entityType: 'ip', matchType: 2, match: null },
      { entityType: 'user', matchType: 1, match: null },
    ],
    42,
    /IP filter component should not be used/,
  )
})

test('a quota written by another broker applies here through the change events', async () => {
  const { store, quotas } = setup()
  const other = new ClientQuotas(store as never, WINDOWS, new ManualClock(), silentLogger)
  await set(other, [client('far')], 'producer_byte_rate', 100)
  assert.ok(quotas.record('produce', userPrincipal('ANONYMOUS'), 'far', 1_000_000) > 0)
  assert.equal(quotas.describe([], false).length, 1)
})

test('controller mutations: strict refuses once exhausted and throttles only then; permissive always accepts and throttles', async () => {
  const { quotas, clock } = setup()
  await set(quotas, [client('ctl')], 'controller_mutation_rate', 1) // burst 11
  const p = userPrincipal('ANONYMOUS')
  const strict = quotas.mutationQuota(p, 'ctl', true)
  assert.ok(strict.admit())
  strict.record(20) // 11 − 20 = −9: allowed, not throttled
  assert.equal(strict.throttleMs(), 0)
  const next = quotas.mutationQuota(p, 'ctl', true)
  assert.equal(next.admit(), false)
  assert.equal(next.throttleMs(), 9000)
  clock.advance(4000)
  assert.equal(next.throttleMs(), 5000, 'less the time since it was earned')
  const permissive = quotas.mutationQuota(p, 'ctl', false)
  assert.ok(permissive.admit())
  permissive.record(1) // −5 − 1 = −6
  assert.equal(permissive.throttleMs(), 6000)
  const free = quotas.mutationQuota(p, 'nobody', true)
  assert.ok(free.admit())
  free.record(1000)
  assert.equal(free.throttleMs(), 0)
})

test("an ip entity must be an address or a name that resolves (Kafka's message)", async () => {
  const { quotas } = setup()
  const ip = (name: string) => [{ entityType: 'ip', entityName: name }]
  const [ok, bad] = await quotas.alter(
    [
      { entity: ip('fe80::1'), ops: [{ key: 'connection_creation_rate', value: 5, remove: false }] },
      { entity: ip('no-such-host.invalid'), ops: [{ key: 'connection_creation_rate', value: 5, remove: false }] },
    ],
    false,
  )
  assert.equal(ok!.errorCode, 0)
  assert.equal(bad!.errorCode, ErrorCode.INVALID_REQUEST.code)
  assert.equal(bad!.errorMessage, 'no-such-host.invalid is not a valid IP or resolvable host.')
})

test('an IPv4 client seen on a dual-stack listener (::ffff:a.b.c.d) is limited by its IPv4 entity', async () => {
  const { quotas } = setup()
  await set(quotas, [{ entityType: 'ip', entityName: '192.0.2.7' }], 'connection_creation_rate', 1)
  let refused = 0
  for (let i = 0; i < 20; i++) if (quotas.admitConnection('::ffff:192.0.2.7') > 0) refused++
  assert.equal(refused, 10)
})

test('connection_creation_rate: the address own entity, else the default ip; refused ones are not counted', async () => {
  const { quotas, clock } = setup()
  assert.equal(quotas.admitConnection('127.0.0.1'), 0)
  await set(quotas, [{ entityType: 'ip', entityName: null }], 'connection_creation_rate', 1)
  await set(quotas, [{ entityType: 'ip', entityName: '10.0.0.1' }], 'connection_creation_rate', 100)
  let accepted = 0
  for (let i = 0; i < 30; i++) if (quotas.admitConnection('127.0.0.1') === 0) accepted++
  assert.equal(accepted, 10, '1 per second over the 10 s minimum span')
  for (let i = 0; i < 30; i++) assert.equal(quotas.admitConnection('10.0.0.1'), 0)
  clock.advance(60_000)
  assert.equal(quotas.admitConnection('127.0.0.1'), 0)
})
