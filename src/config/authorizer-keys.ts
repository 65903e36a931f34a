// The authorization keys, with Kafka's names and defaults: authorizer.class.name turns on Kafka's
// StandardAuthorizer semantics (src/security/acl/standard-authorizer.ts); the older AclAuthorizer
// name means the same here. Any other class name fails start-up naming the key, since no Java
// class can be loaded.
import type { ConfigKeyDef } from './config-key.js'

export const AUTHORIZER_CLASSES = ['org.apache.kafka.metadata.authorizer.StandardAuthorizer', 'kafka.security.authorizer.AclAuthorizer']

const authorizerClass = (v: string) =>
  v === '' || AUTHORIZER_CLASSES.includes(v) ? undefined : `empty (no authorization) or one of ${AUTHORIZER_CLASSES.join(', ')}`

export const AUTHORIZER_KEYS = [
  {
    name: 'authorizer.class.name',
    type: 'class',
    default: '',
    validator: { check: authorizerClass },
    scope: 'broker',
    doc: 'The authorizer: org.apache.kafka.metadata.authorizer.StandardAuthorizer (or kafka.security.authorizer.AclAuthorizer) checks every request against the ACLs; empty allows everything and answers the ACL APIs with SECURITY_DISABLED.',
  },
  {
    name: 'super.users',
    type: 'string',
    default: '',
    scope: 'broker',
    doc: 'Principals allowed every operation whatever the ACLs say, separated by semicolons (User:admin;User:ops).',
  },
  {
    name: 'allow.everyone.if.no.acl.found',
    type: 'boolean',
    default: 'false',
    scope: 'broker',
    doc: 'With an authorizer: a resource no ACL applies to is open to everyone (true) or to super users only (false).',
  },
] as const satisfies readonly ConfigKeyDef[]
