// The client's ACL admin calls: CreateAcls, DescribeAcls and DeleteAcls (keys 30, 29, 31) in the
// highest version both sides support, with the bindings and filters as the authorizer port
// declares them (src/ports/authorizer.ts, Kafka's codes). A refusal (SECURITY_DISABLED,
// CLUSTER_AUTHORIZATION_FAILED, INVALID_REQUEST) rejects with a ClientError naming Kafka's error.
import type { AclBinding, AclBindingFilter } from '../ports/authorizer.js'
import { CreateAclsRequest, CreateAclsResponse } from '../protocol/messages/30-create-acls.js'
import { DescribeAclsRequest, DescribeAclsResponse } from '../protocol/messages/29-describe-acls.js'
import { DeleteAclsRequest, DeleteAclsResponse } from '../protocol/messages/31-delete-acls.js'
import type { KafkaClient } from './client.js'
import { ClientError, errorName } from './errors.js'

function check(errorCode: number, errorMessage: string | null, what: string): void {
  if (errorCode !== 0) throw new ClientError(errorName(errorCode), errorMessage ?? what)
}

const wireFilter = (f: AclBindingFilter) => ({
  resourceTypeFilter: f.resourceType,
  resourceNameFilter: f.resourceName,
  patternTypeFilter: f.patternType,
  principalFilter: f.principal,
  hostFilter: f.host,
  operation: f.operation,
  permissionType: f.permissionType,
})

export async function createAcls(client: KafkaClient, bindings: readonly AclBinding[]): Promise<void> {
  const res = await client.request(CreateAclsRequest, CreateAclsResponse, {
    creations: bindings.map((b) => ({ ...b, resourcePatternType: b.patternType })),
  })
  for (const r of res.results) check(r.errorCode, r.errorMessage, 'create ACLs')
}

export async function describeAcls(client: KafkaClient, filter: AclBindingFilter): Promise<AclBinding[]> {
  const res = await client.request(DescribeAclsRequest, DescribeAclsResponse, wireFilter(filter))
  check(res.errorCode, res.errorMessage, 'describe ACLs')
  return res.resources.flatMap((r) =>
    r.acls.map((a) => ({ resourceType: r.resourceType, resourceName: r.resourceName, patternType: r.patternType, ...a })),
  )
}

/** The bindings deleted, over every filter. */
export async function deleteAcls(client: KafkaClient, filters: readonly AclBindingFilter[]): Promise<AclBinding[]> {
  const res = await client.request(DeleteAclsRequest, DeleteAclsResponse, { filters: filters.map(wireFilter) })
  const deleted: AclBinding[] = []
  for (const r of res.filterResults) {
    check(r.errorCode, r.errorMessage, 'delete ACLs')
    for (const m of r.matchingAcls) {
      check(m.errorCode, m.errorMessage, 'delete ACLs')
      const { errorCode: _c, errorMessage: _m, ...b } = m
      deleted.push(b)
    }
  }
  return deleted
}
