// SCRAM (security/sasl/scram-*.ts): the arithmetic against RFC 7677's SCRAM-SHA-256 example, the
// message grammar as Kafka's ScramMessages reads it, and the broker's SCRAM server driven by the
// client library's exchange (client/sasl.ts) over a fake store: a good password passes and the
// client checks the broker's signature; a wrong password, an unknown user and a tampered nonce fail.
import assert from 'node:assert/strict'
import { describe, test } from 'node:test'
import { SASL_CLIENT_MECHANISMS } from '../../../src/client/sasl.js'
import { SaslAuthenticationError } from '../../../src/security/sasl/mechanism.js'
import { scramMechanism } from '../../../src/security/sasl/scram.js'
import { StoreScramCredentials } from '../../../src/security/sasl/scram-credentials.js'
import {
  clientProof,
  credentialFromSalted,
  saltedPassword,
  scramMechanismByName,
  serverSignature,
  verifyClientProof,
} from '../../../src/protocol/sasl/scram-crypto.js'
import { authMessage, fromSaslName, parseClientFinal, parseClientFirst, toSaslName } from '../../../src/protocol/sasl/scram-messages.js'
import type { MetadataStore } from '../../../src/ports/metadata-store.js'

/** The two security-entry methods of the metadata store, over one map (all SCRAM needs). */
function securityStore(): MetadataStore {
  const scram = new Map<string, string>()
  return {
    getSecurityEntries: () => scram,
    async setSecurityEntries(_kind: string, entries: Readonly<Record<string, string | null>>) {
      for (const [k, v] of Object.entries(entries)) {
        if (v === null) scram.delete(k)
        else scram.set(k, v)
      }
    },
  } as unknown as MetadataStore
}

const SHA256 = scramMechanismByName('SCRAM-SHA-256')!

describe('SCRAM arithmetic and messages', () => {
  test("RFC 7677's SCRAM-SHA-256 example: proof and server signature", () => {
    const bare = 'n=user,r=rOprNGfwEbeRWgbNEkqO'
    const serverFirst = 'r=rOprNGfwEbeRWgbNEkqO%hvYDpWUa2RaTCAfuxFIlj)hNlF$k0,s=W22ZaJ0SNY7soEsUEjb6gQ==,i=4096'
    const withoutProof = 'c=biws,r=rOprNGfwEbeRWgbNEkqO%hvYDpWUa2RaTCAfuxFIlj)hNlF$k0'
    const salt = Buffer.from('W22ZaJ0SNY7soEsUEjb6gQ==', 'base64')
    const salted = saltedPassword(SHA256, 'pencil', salt, 4096)
    const message = authMessage(bare, serverFirst, withoutProof)
    assert.equal(clientProof(SHA256, salted, message).toString('base64'), 'dHzbZapWIk4jUhN+Ute9ytag9zjfMHgsqmmiz7AndVQ=')
    const cred = credentialFromSalted(SHA256, salted, salt, 4096)
    assert.equal(serverSignature(SHA256, cred.serverKey, message).toString('base64'), '6rriTRBi23WpRR/wtup+mMhUZUn/dB5nLTJRsjl95G4=')
    assert.equal(verifyClientProof(SHA256, cred, message, Buffer.from('dHzbZapWIk4jUhN+Ute9ytag9zjfMHgsqmmiz7AndVQ=', 'base64')), true)
    assert.equal(verifyClientProof(SHA256, cred, message, Buffer.alloc(32)), false)
    assert.equal(verifyClientProof(SHA256, cred, message, Buffer.alloc(31)), false)
  })

  test('the grammar: gs2 flag n only, escaped names, extensions, the final message', () => {
    const first = parseClientFirst(Buffer.from('n,a=a=2Cb,n=a=2Cb=3Dc,r=abc,tokenauth=true'))
    assert.deepEqual(
      { ...first, extensions: Object.fromEntries(first.extensions) },
      {
        gs2Header: 'n,a=a=2Cb,',
        authzid: 'a,b',
        user: 'a,b=c',
        nonce: 'abc',
        bare: 'n=a=2Cb=3Dc,r=abc,tokenauth=true',
        extensions: { tokenauth: 'true' },
      },
    )
    assert.equal(fromSaslName(toSaslName('x,=y')), 'x,=y')
    for (const bad of ['y,,n=u,r=a', 'p=tls-unique,,n=u,r=a', 'n,,n=,r=a', 'n,,n=u,r=', 'n,,r=a,n=u', 'n,,n=u=ZZ,r=a', 'n,,n=\u00e9,r=a']) {
      assert.throws(() => parseClientFirst(Buffer.from(bad, 'latin1')), /Invalid SCRAM client first message/, bad)
    }
    const final = parseClientFinal(Buffer.from('c=biws,r=abc,x=1,p=AAAA'))
    assert.equal(final.withoutProof, 'c=biws,r=abc,x=1')
    assert.equal(final.nonce, 'abc')
    for (const bad of ['c=biws,r=abc', 'c=biws,p=AAAA', 'c=bi,r=abc,p=AAAA', 'r=abc,c=biws,p=AAAA']) {
      assert.throws(() => parseClientFinal(Buffer.from(bad)), /Invalid SCRAM client final message/, bad)
    }
  })
})

describe('the SCRAM server with the client library', () => {
  async function setUp() {
    const store = securityStore()
    const admin = new StoreScramCredentials(store)
    const m = scramMechanismByName('SCRAM-SHA-512')!
    const salt = Buffer.from('salt-of-bob')
    const results = await admin.alter(
      [],
      [{ name: 'bob', mechanism: m.type, iterations: 4096, salt, saltedPassword: saltedPassword(m, 'bob-secret', salt, 4096) }],
    )
    assert.deepEqual(results, [{ user: 'bob', errorCode: 0, errorMessage: null }])
    return { mechanism: scramMechanism(m, store), admin }
  }

  /** Runs the client's exchange against a server; resolves with the principal or rejects. */
  async function exchange(
    server: ReturnType<ReturnType<typeof scramMechanism>['create']>,
    user: string,
    password: string,
    tamper?: (t: string) => string,
  ) {
    const client = SASL_CLIENT_MECHANISMS.get('SCRAM-SHA-512')!({ mechanism: 'SCRAM-SHA-512', username: user, password })
    let token: Buffer | undefined = await client.start()
    let step = 0
    while (token !== undefined) {
      const sent: Buffer = step === 1 && tamper ? Buffer.from(tamper(token.toString())) : token
      token = await client.next(await server.evaluate(sent))
      step++
    }
    return server.principal()
  }

  test('the right password logs in, and the client checks the broker signature', async () => {
    const { mechanism } = await setUp()
    assert.deepEqual(await exchange(mechanism.create({ listenerName: 'L', remoteAddress: '' }), 'bob', 'bob-secret'), {
      type: 'User',
      name: 'bob',
    })
  })

  test('a wrong password, an unknown user and a changed nonce fail without saying which', async () => {
    const { mechanism } = await setUp()
    const attempts: Array<[string, string, ((t: string) => string) | undefined]> = [
      ['bob', 'wrong', undefined],
      ['mallory', 'bob-secret', undefined],
      ['bob', 'bob-secret', (t) => t.replace(/,r=([^,]*)/, ',r=$1x')],
    ]
    for (const [user, password, tamper] of attempts) {
      await assert.rejects(exchange(mechanism.create({ listenerName: 'L', remoteAddress: '' }), user, password, tamper), (err: Error) => {
        // Not a SaslAuthenticationError: the authenticator answers its generic message.
        assert.ok(!(err instanceof SaslAuthenticationError), err.message)
        return true
      })
    }
  })

  test("AlterUserScramCredentials' checks, with Kafka's errors", async () => {
    const { admin } = await setUp()
    const up = (name: string, mechanism: number, iterations: number) => ({
      name,
      mechanism,
      iterations,
      salt: Buffer.from('s'),
      saltedPassword: Buffer.alloc(64),
    })
    const results = await admin.alter(
      [
        { name: 'ghost', mechanism: 2 },
        { name: 'twice', mechanism: 2 },
      ],
      [up('', 2, 4096), up('few', 2, 4095), up('many', 2, 16385), up('md5', 3, 4096), up('twice', 2, 4096)],
    )
    const byUser = Object.fromEntries(results.map((r) => [r.user, [r.errorCode, r.errorMessage]]))
    assert.deepEqual(byUser, {
      ghost: [91, 'Attempt to delete a user credential that does not exist'],
      twice: [91, 'Attempt to delete a user credential that does not exist'],
      '': [93, 'Username must not be empty'],
      few: [93, 'Too few iterations'],
      many: [93, 'Too many iterations'],
      md5: [33, 'Unknown SCRAM mechanism'],
    })
    assert.deepEqual(
      admin.describe(['bob', 'bob', 'nobody']).map((r) => [r.user, r.errorCode]),
      [
        ['bob', 92],
        ['nobody', 91],
      ],
    )
    assert.deepEqual(admin.describe(null), [
      { user: 'bob', errorCode: 0, errorMessage: null, credentialInfos: [{ mechanism: 2, iterations: 4096 }] },
    ])
  })
})
