// How a `tributary` command secures its connections: `--command-config FILE`, a Kafka client
// properties file as Kafka's tools take it (kafka-topics.sh --command-config), and environment
// variables for the same settings. Read once here, for every command, into the client library's
// ClientSecurity (client/security.ts):
//   security.protocol   PLAINTEXT | SSL | SASL_PLAINTEXT | SASL_SSL (any case, as Kafka)   TRIBUTARY_SECURITY_PROTOCOL
//   sasl.mechanism      PLAIN | SCRAM-SHA-256 | SCRAM-SHA-512 | OAUTHBEARER (Kafka's default GSSAPI is refused)
//                                                                                           TRIBUTARY_SASL_MECHANISM
//   sasl.jaas.config    Kafka's JAAS syntax; its username and password options             TRIBUTARY_SASL_JAAS_CONFIG
//                       (or, without JAAS: TRIBUTARY_SASL_USERNAME, TRIBUTARY_SASL_PASSWORD)
//   sasl.oauthbearer.token.endpoint.url   OAUTHBEARER: a file: URL holding the token (a JWT), read
//                       again for each connection, as Kafka's file token retriever     TRIBUTARY_SASL_OAUTHBEARER_TOKEN_ENDPOINT_URL
//   ssl.*               TLS settings (src/client/tls-options.ts)
//   TRIBUTARY_COMMAND_CONFIG   the file, when --command-config is not given
// The file's settings win over the environment's (the file is named on the command line). A value
// that Kafka would refuse fails the command as a usage error naming the key; a password is never
// shown. Other client properties are accepted and ignored, as Kafka's tools warn and go on.
import { tlsOptionsFromClientProperties } from '../client/tls-options.js'
import { readFile } from 'node:fs/promises'
import { fileURLToPath } from 'node:url'
import type { ClientSaslOptions, ClientSecurity } from '../client/security.js'
import { SECURITY_PROTOCOLS, type SecurityProtocol } from '../network/listeners.js'
import { JaasSyntaxError, parseSaslJaasConfig } from '../security/sasl/jaas.js'
import { PropertiesSyntaxError, parseProperties } from '../util/properties.js'
import { UsageError } from './options.js'

/** The environment variables read, by the client property they stand for. */
export const SECURITY_ENV: Readonly<Record<string, string>> = {
  'security.protocol': 'TRIBUTARY_SECURITY_PROTOCOL',
  'sasl.mechanism': 'TRIBUTARY_SASL_MECHANISM',
  'sasl.jaas.config': 'TRIBUTARY_SASL_JAAS_CONFIG',
  'sasl.oauthbearer.token.endpoint.url': 'TRIBUTARY_SASL_OAUTHBEARER_TOKEN_ENDPOINT_URL',
}
const USERNAME_ENV = 'TRIBUTARY_SASL_USERNAME'
const PASSWORD_ENV = 'TRIBUTARY_SASL_PASSWORD'
const FILE_ENV = 'TRIBUTARY_COMMAND_CONFIG'

/**
 * The security of a command's connections from --command-config (or TRIBUTARY_COMMAND_CONFIG) and
 * the environment; undefined when nothing says anything (PLAINTEXT).
 */
export async function loadClientSecurity(
  file: string | undefined,
  env: NodeJS.ProcessEnv = process.env,
): Promise<ClientSecurity | undefined> {
  const path = file ?? env[FILE_ENV]
  let props = new Map<string, string>()
  if (path !== undefined && path !== '') {
    let text: string
    try {
      text = await readFile(path, 'utf8')
    } catch (err) {
      throw new UsageError(`cannot read --command-config ${path}: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}`)
    }
    try {
      props = parseProperties(text)
    } catch (err) {
      if (err instanceof PropertiesSyntaxError) throw new UsageError(`--command-config ${path} ${err.message}`)
      throw err
    }
  }
  return clientSecurityFromProperties(props, env, path ?? 'the environment')
}

/** ClientSecurity from client properties, with the environment filling in what they do not set. */
export function clientSecurityFromProperties(
  props: ReadonlyMap<string, string>,
  env: NodeJS.ProcessEnv,
  where: string,
): ClientSecurity | undefined {
  const get = (key: string): string | undefined => {
    const v = props.get(key) ?? env[SECURITY_ENV[key]!]
    return v === undefined || v.trim() === '' ? undefined : v.trim()
  }
  const protocolText = get('security.protocol')
  const username = env[USERNAME_ENV]
  if (protocolText === undefined && get('sasl.mechanism') === undefined && username === undefined && !hasSsl(props)) return undefined
  const protocol = (protocolText ?? 'PLAINTEXT').toUpperCase()
  if (!(SECURITY_PROTOCOLS as readonly string[]).includes(protocol)) {
    throw new UsageError(`security.protocol (from ${where}) must be one of ${SECURITY_PROTOCOLS.join(', ')}, not "${protocolText}"`)
  }
  const security: ClientSecurity = { protocol: protocol as SecurityProtocol }
  if (protocol.startsWith('SASL_')) security.sasl = saslOptions(get, env, where)
  // TLS: the ssl.* client properties, as Kafka's clients read them (src/client/tls-options.ts).
  if (protocol === 'SSL' || protocol === 'SASL_SSL') {
    try {
      security.tls = tlsOptionsFromClientProperties(Object.fromEntries(props))
    } catch (err) {
      throw new UsageError(`${(err as Error).message} (from ${where})`)
    }
  }
  return security
}

function hasSsl(props: ReadonlyMap<string, string>): boolean {
  for (const k of props.keys()) if (k.startsWith('ssl.')) return true
  return false
}

function saslOptions(get: (key: string) => string | undefined, env: NodeJS.ProcessEnv, where: string): ClientSaslOptions {
  // Kafka's default sasl.mechanism is GSSAPI, which this client does not speak.
  const mechanism = get('sasl.mechanism') ?? 'GSSAPI'
  if (mechanism === 'GSSAPI') {
    throw new UsageError(
      `sasl.mechanism (from ${where}) is GSSAPI (Kafka's default), which Tributary does not support: set PLAIN, SCRAM-SHA-256, SCRAM-SHA-512 or OAUTHBEARER`,
    )
  }
  const jaasText = get('sasl.jaas.config')
  let username = env[USERNAME_ENV]
  let password = env[PASSWORD_ENV]
  if (jaasText !== undefined) {
    try {
      const entry = parseSaslJaasConfig(jaasText)
      username = entry.options.get('username') ?? username
      password = entry.options.get('password') ?? password
    } catch (err) {
      if (err instanceof JaasSyntaxError) throw new UsageError(`sasl.jaas.config (from ${where}) is not valid JAAS: ${err.message}`)
      throw err
    }
  }
  if (mechanism !== 'OAUTHBEARER' && (username === undefined || password === undefined)) {
    throw new UsageError(
      `SASL ${mechanism} needs a username and password: set them in sasl.jaas.config (from ${where}) or ${USERNAME_ENV} and ${PASSWORD_ENV}`,
    )
  }
  return {
    mechanism,
    ...(username !== undefined ? { username } : {}),
    ...(password !== undefined ? { password } : {}),
    ...(mechanism === 'OAUTHBEARER' ? { token: oauthBearerTokenFile(get('sasl.oauthbearer.token.endpoint.url'), where) } : {}),
  }
}

/** OAUTHBEARER's token from the file: URL of sasl.oauthbearer.token.endpoint.url, read per connection. */
function oauthBearerTokenFile(url: string | undefined, where: string): () => Promise<string> {
  const key = 'sasl.oauthbearer.token.endpoint.url'
  if (url === undefined) {
    throw new UsageError(`SASL OAUTHBEARER needs a token: set ${key} (from ${where}) to a file: URL holding it, or ${SECURITY_ENV[key]}`)
  }
  let path: string
  try {
    const u = new URL(url)
    if (u.protocol !== 'file:') throw new Error('not a file: URL')
    path = fileURLToPath(u)
  } catch {
    throw new UsageError(`${key} (from ${where}) must be a file: URL holding the token; a token endpoint (${url}) is not supported`)
  }
  return async () => {
    try {
      return (await readFile(path, 'utf8')).trim()
    } catch (err) {
      throw new UsageError(
        `cannot read the OAUTHBEARER token file ${path} (${key}): ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}`,
      )
    }
  }
}
