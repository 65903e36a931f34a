// Kafka client properties (a --command-config file, or a broker's own ssl.* settings for a client)
// → ClientTlsOptions: the ssl.* keys Kafka's clients take, for PEM stores. Files are read here;
// a missing one throws an Error naming the key. Secrets are never put in an error.
//   ssl.truststore.location / ssl.truststore.certificates      → ca
//   ssl.keystore.location (PEM key + chain in one file)        → cert, key
//   ssl.keystore.certificate.chain + ssl.keystore.key          → cert, key
//   ssl.key.password                                           → passphrase
//   ssl.endpoint.identification.algorithm ("" turns the host name check off; default https)
// ssl.keystore.type / ssl.truststore.type must be PEM when given (JKS and PKCS12 are refused).
import { readFileSync } from 'node:fs'
import type { ClientTlsOptions } from './security.js'

export function tlsOptionsFromClientProperties(props: Readonly<Record<string, string>>): ClientTlsOptions {
  const get = (k: string): string | undefined => {
    const v = props[k]?.trim()
    return v === undefined || v === '' ? undefined : v
  }
  const read = (k: string): string => {
    const path = get(k)!
    try {
      return readFileSync(path, 'utf8')
    } catch (err) {
      throw new Error(`cannot read ${k} ${path}: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}`, { cause: err })
    }
  }
  for (const k of ['ssl.keystore.type', 'ssl.truststore.type']) {
    const type = get(k)
    if (type !== undefined && type.toUpperCase() !== 'PEM') throw new Error(`${k}=${type} is not supported: use PEM files`)
  }
  const out: ClientTlsOptions = {}
  if (get('ssl.truststore.certificates') !== undefined) out.ca = get('ssl.truststore.certificates')!
  else if (get('ssl.truststore.location') !== undefined) out.ca = read('ssl.truststore.location')
  if (get('ssl.keystore.certificate.chain') !== undefined || get('ssl.keystore.key') !== undefined) {
    if (get('ssl.keystore.certificate.chain') === undefined || get('ssl.keystore.key') === undefined) {
      throw new Error('ssl.keystore.certificate.chain and ssl.keystore.key go together')
    }
    out.cert = get('ssl.keystore.certificate.chain')!
    out.key = get('ssl.keystore.key')!
  } else if (get('ssl.keystore.location') !== undefined) {
    const text = read('ssl.keystore.location')
    const blocks = [...text.matchAll(/-----BEGIN ([A-Z0-9 ]+)-----[\s\S]*?-----END \1-----/g)]
    const keys = blocks.filter((b) => b[1]!.endsWith('PRIVATE KEY'))
    const certs = blocks.filter((b) => b[1] === 'CERTIFICATE')
    if (keys.length !== 1 || certs.length === 0) {
      throw new Error('ssl.keystore.location: expected a PEM file with one private key and its certificate chain')
    }
    out.key = keys[0]![0]
    out.cert = certs.map((b) => b[0]).join('\n')
  }
  if (get('ssl.key.password') !== undefined) out.passphrase = get('ssl.key.password')!
  const algorithm = props['ssl.endpoint.identification.algorithm']
  out.checkHostname = algorithm === undefined || algorithm.trim().toLowerCase() === 'https'
  return out
}
