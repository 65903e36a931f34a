// SASL/PLAIN (RFC 4616), the server side as Kafka's PlainSaslServer: one message
// [authzid] NUL authcid NUL password, UTF-8. The users are the listener's JAAS options
// user_<name>="<password>" (Kafka's PlainServerCallbackHandler). Checks, in Kafka's order and with
// its messages: exactly three tokens; a user name; a password; the password (compared in constant
// time, the same answer for an unknown user and a wrong password); an authzid empty or equal to the
// user name (CVE-2017-12610: no acting as somebody else).
import { userPrincipal } from '../../network/principal.js'
import { secretsEqual } from './constant-time.js'
import type { JaasEntry } from './jaas.js'
import { SaslAuthenticationError, type SaslMechanism, type SaslServer } from './mechanism.js'

const USER_PREFIX = 'user_'
/** Compared against when the user is unknown, so that case takes as long as a wrong password. */
const NO_PASSWORD = '\u0000no such user\u0000'

/** The user_<name>="<password>" options of a JAAS login module. */
export function plainUsers(jaas: JaasEntry | undefined): ReadonlyMap<string, string> {
  const users = new Map<string, string>()
  for (const [k, v] of jaas?.options ?? []) if (k.startsWith(USER_PREFIX)) users.set(k.slice(USER_PREFIX.length), v)
  return users
}

export function plainMechanism(users: ReadonlyMap<string, string>): SaslMechanism {
  return { name: 'PLAIN', create: () => new PlainServer(users) }
}

function tokens(message: string): string[] {
  const out: string[] = []
  let start = 0
  for (let i = 0; i < 4; i++) {
    const end = message.indexOf('\u0000', start)
    if (end < 0) {
      out.push(message.slice(start))
      break
    }
    out.push(message.slice(start, end))
    start = end + 1
  }
  return out
}

class PlainServer implements SaslServer {
  complete = false
  private user = ''

  constructor(private readonly users: ReadonlyMap<string, string>) {}

  evaluate(token: Buffer): Buffer {
    if (this.complete) throw new SaslAuthenticationError('Authentication failed: the PLAIN exchange is already complete')
    const parts = tokens(token.toString('utf8'))
    if (parts.length !== 3) throw new SaslAuthenticationError(`Invalid SASL/PLAIN response: expected 3 tokens, got ${parts.length}`)
    const [authzid, user, password] = parts as [string, string, string]
    if (user === '') throw new SaslAuthenticationError('Authentication failed: username not specified')
    if (password === '') throw new SaslAuthenticationError('Authentication failed: password not specified')
    const expected = this.users.get(user)
    const matches = secretsEqual(password, expected ?? NO_PASSWORD)
    if (expected === undefined || !matches) throw new SaslAuthenticationError('Authentication failed: Invalid username or password')
    if (authzid !== '' && authzid !== user) {
      throw new SaslAuthenticationError('Authentication failed: Client requested an authorization id that is different from username')
    }
    this.user = user
    this.complete = true
    return Buffer.alloc(0)
  }

  principal() {
    if (!this.complete) throw new Error('the PLAIN exchange has not completed')
    return userPrincipal(this.user)
  }
}
