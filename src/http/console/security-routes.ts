// The console's users and ACLs, under /console/api/security (REST v3 has no resource for them):
//
// - GET /console/api/security: the SCRAM users with their mechanisms and iterations
//   (DescribeUserScramCredentials) and the ACL bindings (DescribeAcls, every binding), with
//   Kafka's names for the codes; `acls: null` when the broker has no authorizer (SECURITY_DISABLED).
// - POST /console/api/acls {principal, host, operation, permission, resource_type, resource_name,
//   pattern_type}: creates one binding (names as kafka-acls prints them, e.g. READ, ALLOW, TOPIC,
//   LITERAL).
// - POST /console/api/acls/delete {the same fields}: deletes exactly that binding.
// The calls run as the console's user (http/auth.ts), so Kafka's ACLs decide what the page may
// show and change: a refusal is 403 with Kafka's error name.
import type { FastifyInstance } from 'fastify'
import { createAcls, deleteAcls, describeAcls } from '../../client/admin-acls.js'
import { ClientError } from '../../client/errors.js'
import { describeScramUsers } from '../../client/scram-users.js'
import { ANY_ACL_BINDING, type AclBinding, AclOperation, AclPermissionType, PatternType, ResourceType } from '../../ports/authorizer.js'
import type { ConsoleRouteKit } from './share-routes.js'

const nameOf = (table: Record<string, number>, code: number) => Object.entries(table).find(([, v]) => v === code)?.[0] ?? String(code)

interface AclBody {
  principal?: unknown
  host?: unknown
  operation?: unknown
  permission?: unknown
  resource_type?: unknown
  resource_name?: unknown
  pattern_type?: unknown
}

/** The binding a body names, or the reason it is refused. */
function bindingOf(body: AclBody | undefined): AclBinding | string {
  const b = body ?? {}
  const code = (table: Record<string, number>, v: unknown, what: string, allowed: string[]): number | string => {
    const name = typeof v === 'string' ? v.toUpperCase() : ''
    return allowed.includes(name) ? table[name]! : `${what} must be one of ${allowed.join(', ')}`
  }
  if (typeof b.principal !== 'string' || !/^[^:]+:.+$/.test(b.principal)) return 'principal must be Type:name, e.g. User:alice'
  if (typeof b.resource_name !== 'string' || b.resource_name === '') return 'resource_name is required'
  const operation = code(
    AclOperation,
    b.operation,
    'operation',
    Object.keys(AclOperation).filter((k) => k !== 'UNKNOWN' && k !== 'ANY'),
  )
  const permission = code(AclPermissionType, b.permission ?? 'ALLOW', 'permission', ['ALLOW', 'DENY'])
  const resourceType = code(ResourceType, b.resource_type, 'resource_type', ['TOPIC', 'GROUP', 'CLUSTER', 'TRANSACTIONAL_ID'])
  const patternType = code(PatternType, b.pattern_type ?? 'LITERAL', 'pattern_type', ['LITERAL', 'PREFIXED'])
  for (const c of [operation, permission, resourceType, patternType]) if (typeof c === 'string') return c
  return {
    principal: b.principal,
    host: typeof b.host === 'string' && b.host !== '' ? b.host : '*',
    operation: operation as number,
    permissionType: permission as number,
    resourceType: resourceType as number,
    resourceName: b.resource_name,
    patternType: patternType as number,
  }
}

const named = (a: AclBinding) => ({
  principal: a.principal,
  host: a.host,
  operation: nameOf(AclOperation, a.operation),
  permission: nameOf(AclPermissionType, a.permissionType),
  resource_type: nameOf(ResourceType, a.resourceType),
  resource_name: a.resourceName,
  pattern_type: nameOf(PatternType, a.patternType),
})

export function registerSecurityRoutes(app: FastifyInstance, kit: ConsoleRouteKit): void {
  const { kafka, fail } = kit
  const status = (err: unknown) =>
    err instanceof ClientError && err.code.endsWith('_AUTHORIZATION_FAILED')
      ? 403
      : err instanceof ClientError && err.code === 'INVALID_REQUEST'
        ? 400
        : kit.statusOf(err)
  const message = (err: unknown) =>
    err instanceof ClientError ? `${err.code}: ${err.message}` : err instanceof Error ? err.message : String(err)

  app.get('/console/api/security', async (_req, reply) => {
    try {
      const c = await kafka()
      const users = await describeScramUsers(c)
      let acls: ReturnType<typeof named>[] | null = null
      try {
        const all = await describeAcls(c, ANY_ACL_BINDING)
        acls = all.map(named)
      } catch (err) {
        if (!(err instanceof ClientError && err.code === 'SECURITY_DISABLED')) throw err
      }
      return { users, acls }
    } catch (err) {
      return fail(reply, status(err), message(err))
    }
  })

  app.post<{ Body: AclBody }>('/console/api/acls', async (req, reply) => {
    const binding = bindingOf(req.body)
    if (typeof binding === 'string') return fail(reply, 400, binding)
    try {
      await createAcls(await kafka(), [binding])
      return { created: named(binding) }
    } catch (err) {
      return fail(reply, status(err), message(err))
    }
  })

  app.post<{ Body: AclBody }>('/console/api/acls/delete', async (req, reply) => {
    const binding = bindingOf(req.body)
    if (typeof binding === 'string') return fail(reply, 400, binding)
    try {
      const deleted = await deleteAcls(await kafka(), [binding])
      return { deleted: deleted.map(named) }
    } catch (err) {
      return fail(reply, status(err), message(err))
    }
  })
}
