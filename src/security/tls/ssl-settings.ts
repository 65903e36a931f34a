// A listener's ssl.* settings read into what node:tls takes: the key store (PEM file, inline PEM,
// or PKCS12), the trust store (PEM file or inline PEM), the TLS versions and cipher suites. Every
// value is the listener's own (listener.name.<listener>.ssl.*) when set, else the broker's, as
// Kafka reads them. Everything is checked here, so a bad setting fails start-up with a ConfigError
// naming the key: a missing or unreadable file, a store type we cannot read (JKS), a key that does
// not match its certificate or does not decrypt, a TLS version or a cipher suite Node does not have.
// Secrets (passwords, inline keys) never appear in an error or a log line.

import { readFileSync } from 'node:fs'
import { createSecureContext, getCiphers, type SecureContextOptions } from 'node:tls'
import type { BrokerConfig, BrokerConfigName } from '../../config/config.js'
import { ConfigError } from '../../config/config.js'

/** Key, certificates and trusted CAs: what createSecureContext and tls.connect take. */
export interface TlsMaterial {
  key?: string
  cert?: string
  pfx?: Buffer
  passphrase?: string
  ca?: string
}

/** The files the material was read from, to watch for changes. */
export interface TlsFiles {
  keystore?: string
  truststore?: string
}

export interface SslSettings {
  material: TlsMaterial
  files: TlsFiles
  /** TLS versions and ciphers for the context. */
  protocol: Pick<SecureContextOptions, 'minVersion' | 'maxVersion' | 'ciphers'>
  clientAuth: 'required' | 'requested' | 'none'
  principalMappingRules: string
  /** ssl.endpoint.identification.algorithm=https: check the host name of a broker we connect to. */
  checkHostname: boolean
}

type Read = (name: BrokerConfigName) => { value: unknown; key: string }

/** Reads and checks a listener's ssl.* settings; throws ConfigError naming the key at fault. */
export function readSslSettings(config: BrokerConfig, listener: string): SslSettings {
  const read: Read = (name) => ({ value: config.listenerValue(listener, name), key: config.listenerKey(listener, name) })
  const { material, files } = readMaterial(read)
  const protocol = readProtocol(read)
  checkContext(read, material, protocol)
  return {
    material,
    files,
    protocol,
    clientAuth: read('ssl.client.auth').value as SslSettings['clientAuth'],
    principalMappingRules: read('ssl.principal.mapping.rules').value as string,
    checkHostname: String(read('ssl.endpoint.identification.algorithm').value ?? '').toLowerCase() === 'https',
  }
}

/** Re-reads the key and trust stores (a reload after a file changed); throws ConfigError like readSslSettings. */
export function rereadMaterial(config: BrokerConfig, listener: string, protocol: SslSettings['protocol']): TlsMaterial {
  const read: Read = (name) => ({ value: config.listenerValue(listener, name), key: config.listenerKey(listener, name) })
  const { material } = readMaterial(read)
  checkContext(read, material, protocol)
  return material
}

function readMaterial(read: Read): { material: TlsMaterial; files: TlsFiles } {
  const material: TlsMaterial = {}
  const files: TlsFiles = {}

  // The key store.
  const type = read('ssl.keystore.type')
  const location = read('ssl.keystore.location')
  const chain = read('ssl.keystore.certificate.chain')
  const inlineKey = read('ssl.keystore.key')
  const keyPassword = read('ssl.key.password').value as string | null
  const storeType = String(type.value).toUpperCase()
  if (location.value !== null && (chain.value !== null || inlineKey.value !== null)) {
    throw new ConfigError(`${location.key} and ${chain.key}/${inlineKey.key} are both set: give the key store one way`, location.key)
  }
  if ((chain.value === null) !== (inlineKey.value === null)) {
    const missing = chain.value === null ? chain.key : inlineKey.key
    throw new ConfigError(`${missing} is required with ${chain.value === null ? inlineKey.key : chain.key}`, missing)
  }
  if (location.value === null && chain.value === null) {
    throw new ConfigError(`A TLS listener needs a key store: set ${location.key} (or ${chain.key} and ${inlineKey.key})`, location.key)
  }
  if (storeType === 'JKS') {
    throw new ConfigError(
      `${type.key}=JKS is not supported: convert the key store to PKCS12 (keytool -importkeystore -deststoretype PKCS12) or PEM and set ${type.key}`,
      type.key,
      String(type.value),
    )
  }
  if (storeType !== 'PEM' && storeType !== 'PKCS12') {
    throw new ConfigError(`${type.key}=${String(type.value)} is not supported: expected PEM or PKCS12`, type.key, String(type.value))
  }
  if (chain.value !== null) {
    if (storeType !== 'PEM') throw new ConfigError(`${chain.key} needs ${type.key}=PEM`, type.key, String(type.value))
    material.cert = pemBlocks(chain.value as string, 'CERTIFICATE', chain.key)
    material.key = pemKey(inlineKey.value as string, inlineKey.key)
    if (keyPassword !== null) material.passphrase = keyPassword
  } else {
    const path = location.value as string
    files.keystore = path
    const bytes = readStoreFile(path, location.key)
    if (storeType === 'PKCS12') {
      material.pfx = bytes
      const storePassword = read('ssl.keystore.password').value as string | null
      if (storePassword !== null || keyPassword !== null) material.passphrase = (storePassword ?? keyPassword)!
    } else {
      const text = bytes.toString('utf8')
      material.cert = pemBlocks(text, 'CERTIFICATE', location.key)
      material.key = pemKey(text, location.key)
      if (keyPassword !== null) material.passphrase = keyPassword
    }
  }

  // The trust store (optional: without one, Node's bundled CA certificates are trusted).
  const tType = read('ssl.truststore.type')
  const tLocation = read('ssl.truststore.location')
  const tInline = read('ssl.truststore.certificates')
  if (tLocation.value !== null || tInline.value !== null) {
    if (tLocation.value !== null && tInline.value !== null) {
      throw new ConfigError(`${tLocation.key} and ${tInline.key} are both set: give the trust store one way`, tLocation.key)
    }
    if (String(tType.value).toUpperCase() !== 'PEM') {
      throw new ConfigError(
        `${tType.key}=${String(tType.value)} is not supported: export the CA certificates to a PEM file and set ${tType.key}=PEM`,
        tType.key,
        String(tType.value),
      )
    }
    if (tInline.value !== null) material.ca = pemBlocks(tInline.value as string, 'CERTIFICATE', tInline.key)
    else {
      files.truststore = tLocation.value as string
      material.ca = pemBlocks(readStoreFile(files.truststore, tLocation.key).toString('utf8'), 'CERTIFICATE', tLocation.key)
    }
  }
  return { material, files }
}

function readStoreFile(path: string, key: string): Buffer {
  try {
    return readFileSync(path)
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code ?? (err as Error).message
    throw new ConfigError(`Cannot read ${key} ${path}: ${code}`, key, path)
  }
}

const PEM_BLOCK = /-----BEGIN ([A-Z0-9 ]+)-----[\s\S]*?-----END \1-----/g

/** The PEM blocks of one label (CERTIFICATE), joined; throws when there is none. */
function pemBlocks(text: string, label: string, key: string): string {
  const blocks = [...text.matchAll(PEM_BLOCK)].filter((m) => m[1] === label).map((m) => m[0])
  if (blocks.length === 0) throw new ConfigError(`${key}: no PEM ${label} found`, key)
  return `${blocks.join('\n')}\n`
}

/** The one PEM private key (PKCS#8, encrypted PKCS#8, or the traditional RSA/EC forms). */
function pemKey(text: string, key: string): string {
  const blocks = [...text.matchAll(PEM_BLOCK)].filter((m) => m[1]!.endsWith('PRIVATE KEY')).map((m) => m[0])
  if (blocks.length !== 1) throw new ConfigError(`${key}: expected one PEM private key, found ${blocks.length}`, key)
  return `${blocks[0]!}\n`
}

function readProtocol(read: Read): SslSettings['protocol'] {
  const enabled = read('ssl.enabled.protocols')
  const versions = enabled.value as readonly string[]
  if (versions.length === 0) throw new ConfigError(`${enabled.key} is empty: give TLSv1.2 and/or TLSv1.3`, enabled.key, '')
  const protocol: SslSettings['protocol'] = {
    minVersion: versions.includes('TLSv1.2') ? 'TLSv1.2' : 'TLSv1.3',
    maxVersion: versions.includes('TLSv1.3') ? 'TLSv1.3' : 'TLSv1.2',
  }
  const suites = read('ssl.cipher.suites')
  const list = suites.value as readonly string[] | null
  if (list !== null && list.length > 0) {
    const known = new Set(getCiphers())
    const names = list.map((s) => {
      const name = opensslCipherName(s)
      if (!known.has(name.toLowerCase())) throw new ConfigError(`${suites.key}: unknown cipher suite ${s}`, suites.key, list.join(','))
      return name
    })
    protocol.ciphers = names.join(':')
  }
  return protocol
}

const KEY_EXCHANGE: Record<string, string> = {
  ECDHE_RSA: 'ECDHE-RSA-',
  ECDHE_ECDSA: 'ECDHE-ECDSA-',
  DHE_RSA: 'DHE-RSA-',
  DHE_DSS: 'DHE-DSS-',
  RSA: '',
}

/**
 * A cipher suite's OpenSSL name: Kafka's (Java's) IANA names, TLS_<kx>_WITH_<cipher>_<mac>, become
 * OpenSSL's (TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256 → ECDHE-RSA-AES128-GCM-SHA256); TLS 1.3 suites
 * (TLS_AES_128_GCM_SHA256) and OpenSSL names are the same in both.
 */
export function opensslCipherName(suite: string): string {
  const m = /^(?:TLS|SSL)_(.+?)_WITH_(.+)$/.exec(suite)
  if (!m || KEY_EXCHANGE[m[1]!] === undefined) return suite
  const kx = KEY_EXCHANGE[m[1]!]!
  const parts = /^(AES_(128|256)|CHACHA20_POLY1305|CAMELLIA_(128|256))(?:_(GCM|CBC|CCM))?(?:_(SHA384|SHA256|SHA))?$/.exec(m[2]!)
  if (!parts) return suite
  if (parts[1] === 'CHACHA20_POLY1305') return `${kx}CHACHA20-POLY1305`
  const cipher = parts[2] ? `AES${parts[2]}` : `CAMELLIA${parts[3]}`
  const mode = parts[4]
  const mac = parts[5]
  if (mode === 'GCM') return `${kx}${cipher}-GCM-${mac}`
  if (mode === 'CCM') return `${kx}${cipher}-CCM`
  return mac ? `${kx}${cipher}-${mac}` : `${kx}${cipher}`
}

/** Builds the secure context once, so a key that does not match or decrypt fails here, naming its key. */
function checkContext(read: Read, material: TlsMaterial, protocol: SslSettings['protocol']): void {
  try {
    createSecureContext({ ...material, ...protocol })
  } catch (err) {
    const location = read('ssl.keystore.location')
    const where = location.value !== null ? location.key : read('ssl.keystore.key').key
    const reason = (err as Error).message
    // Which store is at fault: a CA problem names the trust store, anything else the key store.
    const trust = /\bca\b|trust/i.test(reason) && material.ca !== undefined
    const key = trust ? read('ssl.truststore.location').key : where
    throw new ConfigError(`Invalid TLS material in ${key}: ${reason}`, key)
  }
}
