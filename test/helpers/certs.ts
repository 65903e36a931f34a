// Development certificates for TLS tests, made by `tributary dev-certs` (src/cli/dev-certs.ts, which
// runs openssl) in a temporary directory, and the broker settings of an SSL listener using them.
import { mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { type DevCerts, generateDevCerts } from '../../src/cli/dev-certs.js'

export interface TestCerts extends DevCerts {
  /** The PEM texts. */
  pem: { ca: string; clientCert: string; clientKey: string }
  remove(): void
}

/** A CA, a broker certificate (localhost, 127.0.0.1) and a client certificate (CN=client) in a new directory. */
export async function makeCerts(dir = mkdtempSync(join(tmpdir(), 'tributary-certs-'))): Promise<TestCerts> {
  const certs = await generateDevCerts({ dir })
  return {
    ...certs,
    pem: {
      ca: readFileSync(certs.ca, 'utf8'),
      clientCert: readFileSync(certs.clientCert, 'utf8'),
      clientKey: readFileSync(certs.clientKey, 'utf8'),
    },
    remove: () => rmSync(dir, { recursive: true, force: true }),
  }
}

/** Broker settings of a TLS listener presenting the broker certificate and trusting the CA. */
export function sslSettings(certs: DevCerts, extra: Record<string, string> = {}): Record<string, string> {
  return {
    'ssl.keystore.type': 'PEM',
    'ssl.keystore.location': certs.brokerKeystore,
    'ssl.truststore.type': 'PEM',
    'ssl.truststore.location': certs.ca,
    ...extra,
  }
}
