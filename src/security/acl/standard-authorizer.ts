// Kafka's StandardAuthorizer for Tributary: decisions from the ACL index (acl-index.ts) plus
// super.users and allow.everyone.if.no.acl.found, ACLs kept in the metadata store as one
// 'acl' security entry per binding (bindings.ts gives the key and text) and followed on every
// broker through the store's change events, so an ACL created on one broker applies on all.
//
// Rules kept here:
// - super.users (principals separated by ';') are allowed everything, before any ACL is read;
// - the host is the client's IP address as Kafka prints it (an IPv4-mapped IPv6 address is
//   shown as IPv4), compared exactly with the ACL's host or "*";
// - a denial is logged at debug on the `authorizer` logger (Kafka's kafka.authorizer.logger),
//   naming principal, operation, host and resource — never a credential;
// - the index is rebuilt on the first decision after a change, so a burst of changes costs one
//   rebuild, and decisions never see a half-applied change.
import { formatPrincipal } from '../../network/principal.js'
import {
  type AclBinding,
  type AclBindingFilter,
  type AclCreateResult,
  type AclDeleteResult,
  AclPermissionType,
  type Authorizer,
  PatternType,
  type RequestIdentity,
  WILDCARD,
} from '../../ports/authorizer.js'
import type { MetadataStore } from '../../ports/metadata-store.js'
import { ErrorCode, toErrorCode } from '../../protocol/errors.js'
import type { Logger } from '../../util/logger.js'
import { AclIndex } from './acl-index.js'
import {
  bindingKey,
  decodeBinding,
  encodeBinding,
  invalidBinding,
  invalidFilter,
  matchesFilter,
  operationName,
  resourceTypeName,
} from './bindings.js'

export interface StandardAuthorizerOptions {
  store: Pick<MetadataStore, 'getSecurityEntries' | 'setSecurityEntries' | 'onChange'>
  /** super.users as configured: principals separated by ';'. */
  superUsers: string
  allowEveryoneIfNoAclFound: boolean
  logger: Logger
}

/** The caller's address as Kafka's InetAddress.getHostAddress gives it. */
export function hostOf(remoteAddress: string): string {
  return remoteAddress.startsWith('::ffff:') && remoteAddress.includes('.') ? remoteAddress.slice(7) : remoteAddress
}

export class StandardAuthorizer implements Authorizer {
  readonly enabled = true
  private readonly superUsers: ReadonlySet<string>
  private readonly allowEveryone: boolean
  private readonly store: StandardAuthorizerOptions['store']
  private readonly logger: Logger
  /** Every binding by its store key. */
  private readonly bindings = new Map<string, AclBinding>()
  private index: AclIndex | undefined

  constructor(options: StandardAuthorizerOptions) {
    this.store = options.store
    this.logger = options.logger
    this.allowEveryone = options.allowEveryoneIfNoAclFound
    this.superUsers = new Set(
      options.superUsers
        .split(';')
        .map((s) => s.trim())
        .filter((s) => s !== ''),
    )
    for (const [key, text] of this.store.getSecurityEntries('acl')) this.apply(key, text)
    this.store.onChange((change) => {
      if (change.kind === 'security' && change.entry === 'acl') {
        this.apply(change.key, this.store.getSecurityEntries('acl').get(change.key) ?? null)
      }
    })
  }

  private apply(key: string, text: string | null): void {
    const b = text === null ? undefined : decodeBinding(text)
    if (b) this.bindings.set(key, b)
    else this.bindings.delete(key)
    if (text !== null && !b) this.logger.warn('ignoring a stored ACL that does not parse', { key })
    this.index = undefined
  }

  private currentIndex(): AclIndex {
    return (this.index ??= new AclIndex(this.bindings.values()))
  }

  authorize(who: RequestIdentity, operation: number, resourceType: number, resourceName: string): boolean {
    const principal = formatPrincipal(who.principal)
    if (this.superUsers.has(principal)) return true
    const host = hostOf(who.remoteAddress)
    const d = this.currentIndex().decide(principal, host, operation, resourceType, resourceName)
    const allowed = d.result === 'allow' || (d.result === 'none' && !d.applies && this.allowEveryone)
    if (!allowed) {
      this.logger.debug(
        `Principal = ${principal} is Denied operation = ${operationName(operation)} from host = ${host} on resource = ${resourceTypeName(resourceType)}:LITERAL:${resourceName}`,
        {
          rule:
            d.result === 'deny' ? `DENY ${encodeBinding(d.acl)}` : d.result === 'none' && !d.applies ? 'no ACL found' : 'no matching ALLOW',
        },
      )
    }
    return allowed
  }

  authorizeAny(who: RequestIdentity, operation: number, resourceType: number): boolean {
    // Kafka's Authorizer.authorizeByResourceType: first as for a resource of no particular name,
    // then: some ALLOW (literal or prefixed) for the caller that no DENY of the caller covers.
    if (this.authorize(who, operation, resourceType, 'hardcode')) return true
    const principal = formatPrincipal(who.principal)
    const host = hostOf(who.remoteAddress)
    const denyLiteral = new Set<string>()
    const denyPrefixed = new Set<string>()
    const allows: AclBinding[] = []
    for (const acl of this.currentIndex().matchingEntries(principal, host, operation, resourceType)) {
      if (acl.permissionType === AclPermissionType.DENY) {
        if (acl.patternType === PatternType.LITERAL && acl.resourceName === WILDCARD) return false
        ;(acl.patternType === PatternType.LITERAL ? denyLiteral : denyPrefixed).add(acl.resourceName)
      } else if (acl.patternType === PatternType.LITERAL && acl.resourceName === WILDCARD) return true
      else allows.push(acl)
    }
    return allows.some((a) => {
      if (a.patternType === PatternType.LITERAL && denyLiteral.has(a.resourceName)) return false
      for (let i = 1; i <= a.resourceName.length; i++) if (denyPrefixed.has(a.resourceName.slice(0, i))) return false
      return true
    })
  }

  acls(filter: AclBindingFilter): AclBinding[] {
    return [...this.bindings.values()].filter((b) => matchesFilter(filter, b))
  }

  async createAcls(bindings: readonly AclBinding[]): Promise<AclCreateResult[]> {
    const results: AclCreateResult[] = []
    const writes: Record<string, string> = {}
    for (const b of bindings) {
      const invalid = invalidBinding(b)
      results.push(invalid ? { errorCode: ErrorCode.INVALID_REQUEST.code, errorMessage: invalid } : { errorCode: 0, errorMessage: null })
      if (!invalid) writes[bindingKey(b)] = encodeBinding(b)
    }
    if (Object.keys(writes).length > 0) {
      try {
        await this.store.setSecurityEntries('acl', writes)
      } catch (err) {
        const failed = { errorCode: toErrorCode(err), errorMessage: `Unable to store the ACLs: ${(err as Error).message}` }
        return results.map((r) => (r.errorCode === 0 ? failed : r))
      }
    }
    return results
  }

  async deleteAcls(filters: readonly AclBindingFilter[]): Promise<AclDeleteResult[]> {
    const results: AclDeleteResult[] = []
    const removals: Record<string, null> = {}
    for (const f of filters) {
      const invalid = invalidFilter(f)
      if (invalid) {
        results.push({ errorCode: ErrorCode.INVALID_REQUEST.code, errorMessage: invalid, deleted: [] })
        continue
      }
      const deleted: AclBinding[] = []
      for (const [key, b] of this.bindings) {
        if (matchesFilter(f, b)) {
          deleted.push(b)
          removals[key] = null
        }
      }
      results.push({ errorCode: 0, errorMessage: null, deleted })
    }
    if (Object.keys(removals).length > 0) {
      try {
        await this.store.setSecurityEntries('acl', removals)
      } catch (err) {
        const code = toErrorCode(err)
        return results.map((r) =>
          r.errorCode === 0 ? { errorCode: code, errorMessage: `Unable to delete the ACLs: ${(err as Error).message}`, deleted: [] } : r,
        )
      }
    }
    return results
  }
}

/** The broker's authorizer from its config: none when authorizer.class.name is empty. */
export function authorizerFor(
  settings: { className: string; superUsers: string; allowEveryoneIfNoAclFound: boolean },
  store: StandardAuthorizerOptions['store'],
  logger: Logger,
): Authorizer | undefined {
  if (settings.className === '') return undefined
  return new StandardAuthorizer({
    store,
    superUsers: settings.superUsers,
    allowEveryoneIfNoAclFound: settings.allowEveryoneIfNoAclFound,
    logger,
  })
}
