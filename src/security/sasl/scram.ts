// SCRAM-SHA-256 and SCRAM-SHA-512 (RFC 5802 / RFC 7677), the server side as Kafka's ScramSaslServer,
// with the credentials of scram-credentials.ts:
//   client-first → server-first (the client's nonce plus ours, the salt, the iterations)
//   client-final → server-final (our signature), once the proof shows the client knows the password.
// Kafka's rules and this broker's: gs2 flag "n" only (no channel binding: "p=" and "y" are refused);
// the final message's nonce must be the whole combined nonce, byte for byte (CVE-2024-56128) and its
// channel binding the gs2 header sent first; an authzid other than the user is refused
// (CVE-2017-12610); the proof is checked in constant time (CVE-2021-38153); extensions are parsed and
// ignored, except tokenauth (delegation tokens, which this broker does not issue: refused).
// An unknown user goes through the same two steps with a made-up credential (salt derived from the
// name, so it is the same each time) and fails where a wrong password fails, with the same message:
// nobody learns which users exist.
import { createHmac, randomBytes } from 'node:crypto'
import { userPrincipal } from '../../network/principal.js'
import type { MetadataStore } from '../../ports/metadata-store.js'
import { SaslAuthenticationError, type SaslMechanism, type SaslServer } from './mechanism.js'
import { lookupScramCredential } from './scram-credentials.js'
import {
  newNonce,
  SCRAM_MIN_ITERATIONS,
  type ScramCredential,
  type ScramMechanismParams,
  serverSignature,
  verifyClientProof,
} from '../../protocol/sasl/scram-crypto.js'
import { authMessage, type ClientFirst, formatServerFirst, parseClientFinal, parseClientFirst } from '../../protocol/sasl/scram-messages.js'

/** Per process: the made-up salts of unknown users cannot be told from real ones. */
const FAKE_SALT_KEY = randomBytes(32)

function madeUpCredential(m: ScramMechanismParams, user: string): ScramCredential {
  const salt = createHmac('sha256', FAKE_SALT_KEY).update(`${m.name}:${user}`).digest().subarray(0, m.keyBytes)
  return { salt, iterations: SCRAM_MIN_ITERATIONS, storedKey: randomBytes(m.keyBytes), serverKey: randomBytes(m.keyBytes) }
}

export function scramMechanism(m: ScramMechanismParams, store: MetadataStore): SaslMechanism {
  return { name: m.name, create: () => new ScramServer(m, (user) => lookupScramCredential(store, m, user)) }
}

/** A failure whose details the client is not told (the authenticator answers a generic message). */
class ScramRefusal extends Error {
  override name = 'ScramRefusal'
}

class ScramServer implements SaslServer {
  private state: 'client-first' | 'client-final' | 'complete' | 'failed' = 'client-first'
  private first?: ClientFirst
  private serverFirst = ''
  private nonce = ''
  private credential?: ScramCredential
  private known = false

  constructor(
    private readonly m: ScramMechanismParams,
    private readonly lookup: (user: string) => ScramCredential | undefined,
  ) {}

  get complete(): boolean {
    return this.state === 'complete'
  }

  evaluate(token: Buffer): Buffer {
    const state = this.state
    this.state = 'failed' // until this step succeeds
    if (state === 'client-first') return this.onClientFirst(token)
    if (state === 'client-final') return this.onClientFinal(token)
    throw new ScramRefusal(`unexpected SCRAM message in state ${state}`)
  }

  private onClientFirst(token: Buffer): Buffer {
    const first = parseClientFirst(token)
    if (first.extensions.get('tokenauth')?.toLowerCase() === 'true') throw new ScramRefusal('delegation tokens are not supported')
    if (first.authzid !== '' && first.authzid !== first.user) {
      throw new SaslAuthenticationError('Authentication failed: Client requested an authorization id that is different from username')
    }
    const stored = this.lookup(first.user)
    this.known = stored !== undefined && stored.iterations >= SCRAM_MIN_ITERATIONS
    this.credential = this.known ? stored : madeUpCredential(this.m, first.user)
    this.first = first
    this.nonce = first.nonce + newNonce()
    this.serverFirst = formatServerFirst(this.nonce, this.credential!.salt, this.credential!.iterations)
    this.state = 'client-final'
    return Buffer.from(this.serverFirst)
  }

  private onClientFinal(token: Buffer): Buffer {
    const final = parseClientFinal(token)
    const first = this.first!
    if (final.nonce !== this.nonce) throw new ScramRefusal('Invalid client nonce in the final client message.')
    if (!final.channelBinding.equals(Buffer.from(first.gs2Header)))
      throw new ScramRefusal('Invalid channel binding in the final client message.')
    const message = authMessage(first.bare, this.serverFirst, final.withoutProof)
    const cred = this.credential!
    const proven = verifyClientProof(this.m, cred, message, final.proof)
    if (!proven || !this.known) throw new ScramRefusal('Invalid client credentials')
    this.state = 'complete'
    this.credential = undefined
    return Buffer.from(`v=${serverSignature(this.m, cred.serverKey, message).toString('base64')}`)
  }

  principal() {
    if (this.state !== 'complete') throw new Error('the SCRAM exchange has not completed')
    return userPrincipal(this.first!.user)
  }
}
