// ssl.principal.mapping.rules as Kafka's SslPrincipalMapper reads and applies them, and the
// RFC 2253 form of a certificate subject the rules see.
import assert from 'node:assert/strict'
import { X509Certificate } from 'node:crypto'
import { execFileSync } from 'node:child_process'
import { mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { describe, test } from 'node:test'
import { NoMatchingRule, PrincipalMapper, rfc2253 } from '../../../../src/security/tls/principal-mapping.js'

describe('PrincipalMapper', () => {
  const dn = 'CN=Alice Smith,OU=Eng,O=Corp,C=US'

  test('DEFAULT (and an empty value) keeps the DN', () => {
    assert.equal(new PrincipalMapper('DEFAULT').name(dn), dn)
    assert.equal(new PrincipalMapper('').name(dn), dn)
  })

  test('the first rule whose pattern matches the whole DN wins; groups, L and U apply', () => {
    const m = new PrincipalMapper('RULE:^CN=(.*?),OU=Ops.*$/ops-$1/, RULE:^CN=([A-Za-z]+) ([A-Za-z]+),OU=(.*?),.*$/$1.$2@$3/L, DEFAULT')
    assert.equal(m.name(dn), 'alice.smith@eng')
    assert.equal(m.name('CN=Bob,OU=Ops,O=Corp'), 'ops-Bob')
    assert.equal(m.name('UID=x'), 'UID=x') // falls through to DEFAULT
    assert.equal(new PrincipalMapper('RULE:^CN=([^,]+),.*$/$1/U').name(dn), 'ALICE SMITH')
  })

  test('a pattern matching only part of the DN does not apply; with no DEFAULT that is a failure', () => {
    const m = new PrincipalMapper('RULE:CN=Alice/x/')
    assert.throws(() => m.name(dn), NoMatchingRule)
  })

  test('an escaped slash is part of the pattern and of the replacement', () => {
    assert.equal(new PrincipalMapper('RULE:^CN=(.*)\\/(.*)$/$1\\/$2-ok/').name('CN=a/b'), 'a/b-ok')
  })

  test('a reference past the last group stays literal, as Kafka escapes it', () => {
    assert.equal(new PrincipalMapper('RULE:^CN=(.*)$/$1$2/').name('CN=x'), 'x$2')
  })

  test('invalid rules are refused', () => {
    assert.throws(() => new PrincipalMapper('RULE:^CN=(.*)$/$1'), /Invalid rule/)
    assert.throws(() => new PrincipalMapper('RULE:^CN=(.*$/$1/'), /Invalid rule/)
    assert.throws(() => new PrincipalMapper('DEFAULT, nonsense'), /Invalid rule/)
  })
})

describe('rfc2253', () => {
  test('reverses the RDNs, keeps the escapes, and writes emailAddress as its OID in hex, as Java does', () => {
    const dir = mkdtempSync(join(tmpdir(), 'tributary-dn-'))
    try {
      execFileSync(
        'openssl',
        [
          'req',
          '-x509',
          '-newkey',
          'ec',
          '-pkeyopt',
          'ec_paramgen_curve:prime256v1',
          '-nodes',
          '-days',
          '1',
          '-keyout',
          join(dir, 'k.pem'),
          '-out',
          join(dir, 'c.pem'),
          '-multivalue-rdn',
          '-subj',
          '/C=US/O=Org, Inc/OU=eng+UID=7/CN=a"b;c/emailAddress=x@y.z',
        ],
        { stdio: 'ignore' },
      )
      const cert = new X509Certificate(readFileSync(join(dir, 'c.pem')))
      assert.equal(rfc2253(cert.subject), '1.2.840.113549.1.9.1=#16057840792e7a,CN=a\\"b\\;c,OU=eng+UID=7,O=Org\\, Inc,C=US')
    } finally {
      rmSync(dir, { recursive: true, force: true })
    }
  })
})
