// The ACL matcher against a naive reference written from Kafka's rules (property tests with
// fast-check), plus the rules one by one: DENY wins, implied DESCRIBE only for ALLOW, User:* and
// "*", super.users, allow.everyone.if.no.acl.found, authorizeByResourceType, and the store
// round trip (create on one authorizer, seen by another on the same store).
import assert from 'node:assert/strict'
import { describe, test } from 'node:test'
import fc from 'fast-check'
import { type AclBinding, AclOperation, AclPermissionType, PatternType, ResourceType } from '../../../src/ports/authorizer.js'
import type { SecurityEntryKind, StoreChange } from '../../../src/ports/metadata-store.js'
import { userPrincipal } from '../../../src/network/principal.js'
import { StandardAuthorizer } from '../../../src/security/acl/standard-authorizer.js'
import { silentLogger } from '../../../src/util/logger.js'

/** The three store methods the authorizer uses, in memory, with change events. */
class SecurityStore {
  private readonly entries = new Map<string, string>()
  private readonly listeners: Array<(c: StoreChange) => void> = []
  getSecurityEntries(kind: SecurityEntryKind): ReadonlyMap<string, string> {
    return kind === 'acl' ? this.entries : new Map()
  }
  async setSecurityEntries(kind: SecurityEntryKind, e: Readonly<Record<string, string | null>>): Promise<void> {
    for (const [key, value] of Object.entries(e)) {
      if (value === null) this.entries.delete(key)
      else this.entries.set(key, value)
      for (const l of this.listeners) l({ kind: 'security', entry: kind, key })
    }
  }
  onChange(l: (c: StoreChange) => void): void {
    this.listeners.push(l)
  }
}

const IMPLIES_DESCRIBE = new Set<number>([AclOperation.READ, AclOperation.WRITE, AclOperation.DELETE, AclOperation.ALTER])

/** Kafka's rules, written straight: no index. */
function reference(
  acls: AclBinding[],
  principal: string,
  host: string,
  op: number,
  type: number,
  name: string,
  everyone: boolean,
): boolean {
  const onResource = acls.filter(
    (a) =>
      a.resourceType === type &&
      (a.patternType === PatternType.PREFIXED ? name.startsWith(a.resourceName) : a.resourceName === name || a.resourceName === '*'),
  )
  const matching = onResource.filter((a) => {
    if (a.principal !== principal && a.principal !== 'User:*') return false
    if (a.host !== '*' && a.host !== host) return false
    if (a.operation === AclOperation.ALL || a.operation === op) return true
    if (a.permissionType !== AclPermissionType.ALLOW) return false
    if (op === AclOperation.DESCRIBE) return IMPLIES_DESCRIBE.has(a.operation)
    if (op === AclOperation.DESCRIBE_CONFIGS) return a.operation === AclOperation.ALTER_CONFIGS
    return false
  })
  if (matching.some((a) => a.permissionType === AclPermissionType.DENY)) return false
  if (matching.some((a) => a.permissionType === AclPermissionType.ALLOW)) return true
  return onResource.length === 0 && everyone
}

const names = fc.constantFrom('a', 'ab', 'abc', 'b', 'ba', '*', 'abd')
const ops = fc.constantFrom(2, 3, 4, 5, 6, 7, 8, 10, 11)
const aclArb: fc.Arbitrary<AclBinding> = fc.record({
  resourceType: fc.constantFrom(ResourceType.TOPIC, ResourceType.GROUP),
  resourceName: names,
  patternType: fc.constantFrom(PatternType.LITERAL, PatternType.PREFIXED),
  principal: fc.constantFrom('User:alice', 'User:bob', 'User:*'),
  host: fc.constantFrom('*', '127.0.0.1', '10.0.0.1'),
  operation: ops,
  permissionType: fc.constantFrom(AclPermissionType.ALLOW, AclPermissionType.DENY),
})

function who(name: string, remoteAddress = '127.0.0.1') {
  return { principal: userPrincipal(name), remoteAddress }
}

async function authorizerWith(acls: AclBinding[], options: { superUsers?: string; everyone?: boolean } = {}) {
  const store = new SecurityStore()
  const a = new StandardAuthorizer({
    store,
    superUsers: options.superUsers ?? '',
    allowEveryoneIfNoAclFound: options.everyone ?? false,
    logger: silentLogger,
  })
  const results = await a.createAcls(acls)
  assert.ok(
    results.every((r) => r.errorCode === 0),
    JSON.stringify(results),
  )
  return { a, store }
}

const binding = (o: Partial<AclBinding>): AclBinding => ({
  resourceType: ResourceType.TOPIC,
  resourceName: 'orders',
  patternType: PatternType.LITERAL,
  principal: 'User:alice',
  host: '*',
  operation: AclOperation.READ,
  permissionType: AclPermissionType.ALLOW,
  ...o,
})

describe('StandardAuthorizer decisions', () => {
  test('agree with the naive reference on random ACL sets', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(aclArb, { maxLength: 25 }),
        fc.boolean(),
        fc.array(
          fc.record({
            user: fc.constantFrom('alice', 'bob', 'carol'),
            host: fc.constantFrom('127.0.0.1', '10.0.0.1'),
            op: fc.constantFrom(3, 4, 5, 6, 7, 8, 10, 11),
            type: fc.constantFrom(ResourceType.TOPIC, ResourceType.GROUP),
            name: fc.constantFrom('a', 'ab', 'abc', 'abcd', 'b', 'bad', 'c', '*'),
          }),
          { minLength: 1, maxLength: 20 },
        ),
        async (acls, everyone, requests) => {
          const { a } = await authorizerWith(acls, { everyone })
          for (const r of requests) {
            const expected = reference(acls, `User:${r.user}`, r.host, r.op, r.type, r.name, everyone)
            assert.equal(a.authorize(who(r.user, r.host), r.op as AclOperation, r.type, r.name), expected, JSON.stringify(r))
          }
        },
      ),
      { numRuns: 300 },
    )
  })

  test('DENY beats ALLOW, also when the ALLOW is more specific', async () => {
    const { a } = await authorizerWith([
      binding({ operation: AclOperation.ALL }),
      binding({ resourceName: 'ord', patternType: PatternType.PREFIXED, permissionType: AclPermissionType.DENY, principal: 'User:*' }),
    ])
    assert.equal(a.authorize(who('alice'), AclOperation.READ, ResourceType.TOPIC, 'orders'), false)
    assert.equal(a.authorize(who('alice'), AclOperation.WRITE, ResourceType.TOPIC, 'orders'), true)
  })

  test('READ implies DESCRIBE for ALLOW only; a DENY READ does not deny DESCRIBE', async () => {
    const { a } = await authorizerWith([
      binding({}),
      binding({ principal: 'User:bob', permissionType: AclPermissionType.DENY }),
      binding({ principal: 'User:bob', operation: AclOperation.DESCRIBE }),
    ])
    assert.equal(a.authorize(who('alice'), AclOperation.DESCRIBE, ResourceType.TOPIC, 'orders'), true)
    assert.equal(a.authorize(who('bob'), AclOperation.DESCRIBE, ResourceType.TOPIC, 'orders'), true)
    assert.equal(a.authorize(who('bob'), AclOperation.READ, ResourceType.TOPIC, 'orders'), false)
  })

  test('hosts: exact address or *, an IPv4-mapped address is its IPv4 form', async () => {
    const { a } = await authorizerWith([binding({ host: '127.0.0.1' })])
    assert.equal(a.authorize(who('alice', '::ffff:127.0.0.1'), AclOperation.READ, ResourceType.TOPIC, 'orders'), true)
    assert.equal(a.authorize(who('alice', '10.1.1.1'), AclOperation.READ, ResourceType.TOPIC, 'orders'), false)
  })

  test('super.users are allowed everything; allow.everyone.if.no.acl.found only where no ACL applies', async () => {
    const { a } = await authorizerWith([binding({})], { superUsers: ' User:admin ; User:ops', everyone: true })
    assert.equal(a.authorize(who('ops'), AclOperation.DELETE, ResourceType.CLUSTER, 'kafka-cluster'), true)
    assert.equal(a.authorize(who('bob'), AclOperation.WRITE, ResourceType.TOPIC, 'other'), true)
    assert.equal(a.authorize(who('bob'), AclOperation.READ, ResourceType.TOPIC, 'orders'), false)
    const { a: closed } = await authorizerWith([])
    assert.equal(closed.authorize(who('bob'), AclOperation.READ, ResourceType.TOPIC, 'any'), false)
  })

  test('authorizeAny: an ALLOW not covered by a DENY (Kafka authorizeByResourceType)', async () => {
    const { a } = await authorizerWith([
      binding({ operation: AclOperation.WRITE, resourceName: 'logs', patternType: PatternType.PREFIXED }),
      binding({
        operation: AclOperation.WRITE,
        resourceName: 'lo',
        patternType: PatternType.PREFIXED,
        principal: 'User:bob',
        permissionType: AclPermissionType.DENY,
      }),
      binding({ operation: AclOperation.WRITE, resourceName: 'logs-x', principal: 'User:bob' }),
    ])
    assert.equal(a.authorizeAny(who('alice'), AclOperation.WRITE, ResourceType.TOPIC), true)
    assert.equal(a.authorizeAny(who('bob'), AclOperation.WRITE, ResourceType.TOPIC), false)
    assert.equal(a.authorizeAny(who('carol'), AclOperation.WRITE, ResourceType.TOPIC), false)
  })
})

describe('StandardAuthorizer bindings', () => {
  test("Kafka's validation: INVALID_REQUEST with the reason", async () => {
    const store = new SecurityStore()
    const a = new StandardAuthorizer({ store, superUsers: '', allowEveryoneIfNoAclFound: false, logger: silentLogger })
    const results = await a.createAcls([
      binding({ resourceType: ResourceType.ANY }),
      binding({ patternType: PatternType.MATCH }),
      binding({ operation: AclOperation.ANY }),
      binding({ permissionType: AclPermissionType.ANY }),
      binding({ resourceName: '' }),
      binding({ resourceType: ResourceType.CLUSTER, resourceName: 'other' }),
      binding({ principal: 'alice' }),
      binding({}),
    ])
    assert.deepEqual(
      results.map((r) => r.errorCode),
      [42, 42, 42, 42, 42, 42, 42, 0],
    )
    assert.match(results[5]!.errorMessage!, /kafka-cluster/)
    assert.equal(store.getSecurityEntries('acl').size, 1)
  })

  test('a binding created twice is one entry; another authorizer on the store follows changes', async () => {
    const { a, store } = await authorizerWith([binding({}), binding({})])
    assert.equal(store.getSecurityEntries('acl').size, 1)
    const other = new StandardAuthorizer({ store, superUsers: '', allowEveryoneIfNoAclFound: false, logger: silentLogger })
    assert.equal(other.authorize(who('alice'), AclOperation.READ, ResourceType.TOPIC, 'orders'), true)
    await a.createAcls([binding({ operation: AclOperation.WRITE })])
    assert.equal(other.authorize(who('alice'), AclOperation.WRITE, ResourceType.TOPIC, 'orders'), true)
    const [deleted] = await a.deleteAcls([
      {
        resourceType: ResourceType.TOPIC,
        resourceName: 'orders',
        patternType: PatternType.MATCH,
        principal: null,
        host: null,
        operation: AclOperation.READ,
        permissionType: AclPermissionType.ANY,
      },
    ])
    assert.equal(deleted!.deleted.length, 1)
    assert.equal(other.authorize(who('alice'), AclOperation.READ, ResourceType.TOPIC, 'orders'), false)
    assert.equal(
      other.acls({ resourceType: 1, resourceName: null, patternType: 1, principal: null, host: null, operation: 1, permissionType: 1 })
        .length,
      1,
    )
  })

  test('filters: MATCH finds the literal, wildcard and prefixes that apply to a name', async () => {
    const { a } = await authorizerWith([
      binding({}),
      binding({ resourceName: '*' }),
      binding({ resourceName: 'ord', patternType: PatternType.PREFIXED }),
      binding({ resourceName: 'orders-x' }),
      binding({ resourceName: 'orders', resourceType: ResourceType.GROUP }),
    ])
    const match = a.acls({
      resourceType: ResourceType.TOPIC,
      resourceName: 'orders',
      patternType: PatternType.MATCH,
      principal: null,
      host: null,
      operation: 1,
      permissionType: 1,
    })
    assert.deepEqual(match.map((b) => b.resourceName).sort(), ['*', 'ord', 'orders'])
    const literal = a.acls({
      resourceType: 1,
      resourceName: 'orders',
      patternType: PatternType.ANY,
      principal: null,
      host: null,
      operation: 1,
      permissionType: 1,
    })
    assert.equal(literal.length, 2)
  })
})
