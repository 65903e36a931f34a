// ACL bindings as values: their names (Kafka's enum names, used by the CLI and the logs), the
// checks Kafka makes before creating one or applying a filter (its AclControlManager and AclApis:
// INVALID_REQUEST with the same reasons), filter matching (Kafka's ResourcePatternFilter and
// AccessControlEntryFilter), and the stored form: one metadata-store entry per binding, keyed by
// a hash of the binding so the same binding created twice, on any broker, is one entry.
import { createHash } from 'node:crypto'
import {
  AclOperation,
  AclPermissionType,
  type AclBinding,
  type AclBindingFilter,
  CLUSTER_NAME,
  PatternType,
  ResourceType,
  WILDCARD,
} from '../../ports/authorizer.js'

function namesOf(codes: Record<string, number>): Map<number, string> {
  return new Map(Object.entries(codes).map(([name, code]) => [code, name]))
}
const RESOURCE_NAMES = namesOf(ResourceType)
const PATTERN_NAMES = namesOf(PatternType)
const OPERATION_NAMES = namesOf(AclOperation)
const PERMISSION_NAMES = namesOf(AclPermissionType)

export const resourceTypeName = (code: number): string => RESOURCE_NAMES.get(code) ?? 'UNKNOWN'
export const patternTypeName = (code: number): string => PATTERN_NAMES.get(code) ?? 'UNKNOWN'
export const operationName = (code: number): string => OPERATION_NAMES.get(code) ?? 'UNKNOWN'
export const permissionName = (code: number): string => PERMISSION_NAMES.get(code) ?? 'UNKNOWN'

/** Kafka's display of a resource pattern, e.g. "ResourcePattern(resourceType=TOPIC, name=orders, patternType=LITERAL)". */
export function describePattern(b: Pick<AclBinding, 'resourceType' | 'resourceName' | 'patternType'>): string {
  return `ResourcePattern(resourceType=${resourceTypeName(b.resourceType)}, name=${b.resourceName}, patternType=${patternTypeName(b.patternType)})`
}

/** "Type:name" with both parts non-empty (Kafka's SecurityUtils.parseKafkaPrincipal). */
export function validPrincipal(text: string): boolean {
  const colon = text.indexOf(':')
  return colon > 0 && colon < text.length - 1
}

/** Why Kafka refuses to create this binding (INVALID_REQUEST), or undefined when it is valid. */
export function invalidBinding(b: AclBinding): string | undefined {
  if (b.resourceType === ResourceType.UNKNOWN || b.resourceType === ResourceType.ANY || !RESOURCE_NAMES.has(b.resourceType))
    return `Invalid resourceType ${resourceTypeName(b.resourceType)}`
  if (b.patternType !== PatternType.LITERAL && b.patternType !== PatternType.PREFIXED)
    return `Invalid patternType ${patternTypeName(b.patternType)}`
  if (b.operation === AclOperation.UNKNOWN || b.operation === AclOperation.ANY || !OPERATION_NAMES.has(b.operation))
    return `Invalid operation ${operationName(b.operation)}`
  if (b.permissionType !== AclPermissionType.ALLOW && b.permissionType !== AclPermissionType.DENY)
    return `Invalid permissionType ${permissionName(b.permissionType)}`
  if (b.resourceName === '') return 'Invalid empty resource name'
  if (b.resourceType === ResourceType.CLUSTER && b.resourceName !== CLUSTER_NAME)
    return `The only valid name for the CLUSTER resource is ${CLUSTER_NAME}`
  if (!validPrincipal(b.principal))
    return `Could not parse principal from \`${b.principal}\` (no colon is present separating the principal type from the principal name)`
  if (b.host === '') return 'Invalid empty host'
  return undefined
}

/** Why Kafka refuses this filter (an UNKNOWN element; INVALID_REQUEST), or undefined. */
export function invalidFilter(f: AclBindingFilter): string | undefined {
  if (
    !RESOURCE_NAMES.has(f.resourceType) ||
    f.resourceType === ResourceType.UNKNOWN ||
    !PATTERN_NAMES.has(f.patternType) ||
    f.patternType === PatternType.UNKNOWN
  )
    return 'Unknown patternFilter.'
  if (
    !OPERATION_NAMES.has(f.operation) ||
    f.operation === AclOperation.UNKNOWN ||
    !PERMISSION_NAMES.has(f.permissionType) ||
    f.permissionType === AclPermissionType.UNKNOWN
  )
    return 'Unknown entryFilter.'
  return undefined
}

/** Kafka's ResourcePatternFilter.matches and AccessControlEntryFilter.matches together. */
export function matchesFilter(f: AclBindingFilter, b: AclBinding): boolean {
  if (f.resourceType !== ResourceType.ANY && f.resourceType !== b.resourceType) return false
  if (f.patternType !== PatternType.ANY && f.patternType !== PatternType.MATCH && f.patternType !== b.patternType) return false
  if (f.resourceName !== null) {
    if (f.patternType === PatternType.ANY || f.patternType === b.patternType) {
      if (f.resourceName !== b.resourceName) return false
    } else if (b.patternType === PatternType.LITERAL) {
      if (f.resourceName !== b.resourceName && b.resourceName !== WILDCARD) return false
    } else if (b.patternType === PatternType.PREFIXED) {
      if (!f.resourceName.startsWith(b.resourceName)) return false
    } else return false
  }
  if (f.principal !== null && f.principal !== b.principal) return false
  if (f.host !== null && f.host !== b.host) return false
  if (f.operation !== AclOperation.ANY && f.operation !== b.operation) return false
  if (f.permissionType !== AclPermissionType.ANY && f.permissionType !== b.permissionType) return false
  return true
}

/** The stored text of a binding (its fields in a fixed order). */
export function encodeBinding(b: AclBinding): string {
  return JSON.stringify([b.resourceType, b.resourceName, b.patternType, b.principal, b.host, b.operation, b.permissionType])
}

/** The store key of a binding: stable for equal bindings, whichever broker writes it. */
export function bindingKey(b: AclBinding): string {
  return createHash('sha256').update(encodeBinding(b)).digest('hex').slice(0, 32)
}

/** A stored text back to a binding; undefined when it is not one (it is then ignored). */
export function decodeBinding(text: string): AclBinding | undefined {
  let v: unknown
  try {
    v = JSON.parse(text)
  } catch {
    return undefined
  }
  if (!Array.isArray(v) || v.length !== 7) return undefined
  const [resourceType, resourceName, patternType, principal, host, operation, permissionType] = v as unknown[]
  const ints = [resourceType, patternType, operation, permissionType]
  if (!ints.every((x) => Number.isInteger(x)) || ![resourceName, principal, host].every((x) => typeof x === 'string')) return undefined
  const b = { resourceType, resourceName, patternType, principal, host, operation, permissionType } as AclBinding
  return invalidBinding(b) === undefined ? b : undefined
}
