// Kafka client properties files for the security tests: the text a Java client, Kafka's own tools
// (--command-config) and the tributary CLI read, for a SASL login (PLAIN, SCRAM, OAUTHBEARER with a
// token file) over SASL_PLAINTEXT or SASL_SSL, or a TLS (optionally mTLS) login. Only Kafka's key
// names; PEM stores (ssl.truststore.type=PEM, ssl.keystore.type=PEM) as the dev certificates are.
import { writeFileSync } from 'node:fs'
import { join } from 'node:path'

export type ClientLogin =
  | { mechanism: 'PLAIN' | 'SCRAM-SHA-256' | 'SCRAM-SHA-512'; user: string; password: string }
  | { mechanism: 'OAUTHBEARER'; tokenFile: string }
  | { mechanism: 'none'; keystore?: string }

const MODULE = {
  PLAIN: 'org.apache.kafka.common.security.plain.PlainLoginModule',
  'SCRAM-SHA-256': 'org.apache.kafka.common.security.scram.ScramLoginModule',
  'SCRAM-SHA-512': 'org.apache.kafka.common.security.scram.ScramLoginModule',
}

/** The properties of `login` to `bootstrap`; with `ca` the connection is TLS trusting that PEM file. */
export function clientProperties(bootstrap: string, login: ClientLogin, ca?: string): string {
  const lines = [`bootstrap.servers=${bootstrap}`]
  if (login.mechanism === 'none') lines.push(`security.protocol=${ca ? 'SSL' : 'PLAINTEXT'}`)
  else lines.push(`security.protocol=${ca ? 'SASL_SSL' : 'SASL_PLAINTEXT'}`, `sasl.mechanism=${login.mechanism}`)
  if (login.mechanism === 'OAUTHBEARER') {
    // Kafka's own login callback handler reads the token from a file: URL (the JVM must allow the
    // file with -Dorg.apache.kafka.sasl.oauthbearer.allowed.urls).
    lines.push(
      'sasl.login.callback.handler.class=org.apache.kafka.common.security.oauthbearer.OAuthBearerLoginCallbackHandler',
      `sasl.oauthbearer.token.endpoint.url=file://${login.tokenFile}`,
      'sasl.jaas.config=org.apache.kafka.common.security.oauthbearer.OAuthBearerLoginModule required ;',
    )
  } else if (login.mechanism !== 'none') {
    lines.push(`sasl.jaas.config=${MODULE[login.mechanism]} required username="${login.user}" password="${login.password}";`)
  }
  if (ca) lines.push('ssl.truststore.type=PEM', `ssl.truststore.location=${ca}`)
  if (login.mechanism === 'none' && login.keystore) lines.push('ssl.keystore.type=PEM', `ssl.keystore.location=${login.keystore}`)
  return `${lines.join('\n')}\n`
}

/** Writes clientProperties(...) to dir/name.properties; returns the path. */
export function writeClientProperties(dir: string, name: string, bootstrap: string, login: ClientLogin, ca?: string): string {
  const path = join(dir, `${name}.properties`)
  writeFileSync(path, clientProperties(bootstrap, login, ca))
  return path
}

/**
 * What test/interop/java SecuredClients printed for LABEL's STEP (`MATRIX LABEL STEP OUTCOME …`):
 * the OUTCOME word ('3', an exception's class name, 'none'), or undefined when it printed none.
 */
export function securedClientsOutcome(stdout: string, label: string, step: string): string | undefined {
  const line = stdout.split('\n').find((l) => l.startsWith(`MATRIX ${label} ${step} `))
  return line?.split(' ')[3]
}
