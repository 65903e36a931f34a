// The ACLs indexed for decisions, with Kafka's StandardAuthorizer rules (StandardAuthorizerData):
// - the ACLs that apply to a resource (type, name) are the LITERAL ones with that name, the
//   LITERAL wildcard "*", and the PREFIXED ones whose name starts the resource name;
// - of those, an ACL matches a request when its principal is the caller's or User:*, its host
//   the caller's address or "*", and its operation the one asked, or ALL — and, for ALLOW only,
//   READ/WRITE/DELETE/ALTER also grant DESCRIBE, ALTER_CONFIGS grants DESCRIBE_CONFIGS;
// - a matching DENY wins over any ALLOW; a matching ALLOW allows; when no ACL applies to the
//   resource at all, allow.everyone.if.no.acl.found decides; otherwise the request is denied.
// Cost: per resource type a map by literal name and a map by prefix, plus the set of prefix
// lengths present, so a decision does a few map lookups (one per distinct prefix length), not a
// scan of every ACL. The index is immutable: a change builds a new one (standard-authorizer.ts).
import { AclOperation, AclPermissionType, type AclBinding, PatternType, WILDCARD } from '../../ports/authorizer.js'

/** What an ALLOW for each operation grants besides itself (Kafka's implied operations). */
const IMPLIED_BY: ReadonlyMap<number, ReadonlySet<number>> = new Map([
  [AclOperation.DESCRIBE, new Set<number>([AclOperation.READ, AclOperation.WRITE, AclOperation.DELETE, AclOperation.ALTER])],
  [AclOperation.DESCRIBE_CONFIGS, new Set<number>([AclOperation.ALTER_CONFIGS])],
])

export const WILDCARD_PRINCIPAL = 'User:*'

interface TypeIndex {
  literal: Map<string, AclBinding[]>
  prefixed: Map<string, AclBinding[]>
  /** Distinct lengths of the PREFIXED names, longest first. */
  prefixLengths: number[]
}

/** What a lookup found: DENY, ALLOW, or no ACL matched (`applies`: whether any ACL was on the resource). */
export type Decision = { result: 'deny' | 'allow'; acl: AclBinding } | { result: 'none'; applies: boolean }

function push(map: Map<string, AclBinding[]>, key: string, b: AclBinding): void {
  const list = map.get(key)
  if (list) list.push(b)
  else map.set(key, [b])
}

/** Does the ACL's entry (principal, host, operation) match the request? null = not at all. */
function entryMatches(acl: AclBinding, principal: string, host: string, operation: number): boolean {
  if (acl.principal !== principal && acl.principal !== WILDCARD_PRINCIPAL) return false
  if (acl.host !== WILDCARD && acl.host !== host) return false
  if (acl.operation === AclOperation.ALL || acl.operation === operation) return true
  return acl.permissionType === AclPermissionType.ALLOW && (IMPLIED_BY.get(operation)?.has(acl.operation) ?? false)
}

export class AclIndex {
  private readonly byType = new Map<number, TypeIndex>()

  constructor(bindings: Iterable<AclBinding>) {
    for (const b of bindings) {
      let t = this.byType.get(b.resourceType)
      if (!t) this.byType.set(b.resourceType, (t = { literal: new Map(), prefixed: new Map(), prefixLengths: [] }))
      push(b.patternType === PatternType.PREFIXED ? t.prefixed : t.literal, b.resourceName, b)
    }
    for (const t of this.byType.values()) {
      t.prefixLengths = [...new Set([...t.prefixed.keys()].map((k) => k.length))].sort((a, b) => b - a)
    }
  }

  /** The decision for `principal` ("Type:name") at `host` doing `operation` on the resource. */
  decide(principal: string, host: string, operation: number, resourceType: number, resourceName: string): Decision {
    const t = this.byType.get(resourceType)
    if (!t) return { result: 'none', applies: false }
    let applies = false
    let allow: AclBinding | undefined
    const scan = (list: AclBinding[] | undefined): AclBinding | undefined => {
      if (!list) return undefined
      applies = true
      for (const acl of list) {
        if (!entryMatches(acl, principal, host, operation)) continue
        if (acl.permissionType === AclPermissionType.DENY) return acl
        allow ??= acl
      }
      return undefined
    }
    let deny = scan(t.literal.get(resourceName))
    if (!deny && resourceName !== WILDCARD) deny = scan(t.literal.get(WILDCARD))
    for (const len of t.prefixLengths) {
      if (deny) break
      if (len <= resourceName.length) deny = scan(t.prefixed.get(resourceName.slice(0, len)))
    }
    if (deny) return { result: 'deny', acl: deny }
    if (allow) return { result: 'allow', acl: allow }
    return { result: 'none', applies }
  }

  /** The ACLs of one resource type whose entry matches (for authorizeByResourceType). */
  *matchingEntries(principal: string, host: string, operation: number, resourceType: number): Iterable<AclBinding> {
    const t = this.byType.get(resourceType)
    if (!t) return
    for (const map of [t.literal, t.prefixed]) {
      for (const list of map.values()) {
        for (const acl of list) {
          if (acl.principal !== principal && acl.principal !== WILDCARD_PRINCIPAL) continue
          if (acl.host !== WILDCARD && acl.host !== host) continue
          if (acl.operation === operation || acl.operation === AclOperation.ALL) yield acl
        }
      }
    }
  }
}
