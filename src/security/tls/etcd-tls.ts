// The broker's TLS to etcd from the tributary.etcd.ssl.* keys (config/ssl-keys.ts): the files are
// read at start-up; a missing or unreadable one, a certificate without its key, or TLS keys with
// http:// endpoints fail start-up with a ConfigError naming the key.
import { readFileSync } from 'node:fs'
import type { EtcdTls } from '../../cluster/etcd-broker.js'
import type { BrokerConfig } from '../../config/config.js'
import { ConfigError } from '../../config/config.js'

/** undefined when no tributary.etcd.ssl.* key is set. */
export function etcdTlsFromConfig(config: BrokerConfig): EtcdTls | undefined {
  const ca = config.get('tributary.etcd.ssl.ca.location')
  const cert = config.get('tributary.etcd.ssl.certificate.location')
  const key = config.get('tributary.etcd.ssl.key.location')
  if (ca === null && cert === null && key === null) return undefined
  if ((cert === null) !== (key === null)) {
    const missing = cert === null ? 'tributary.etcd.ssl.certificate.location' : 'tributary.etcd.ssl.key.location'
    throw new ConfigError(
      `${missing} is required with ${cert === null ? 'tributary.etcd.ssl.key.location' : 'tributary.etcd.ssl.certificate.location'}`,
      missing,
    )
  }
  const plain = (config.get('etcd.endpoints') ?? []).filter((e) => !e.startsWith('https://'))
  if (plain.length > 0) {
    throw new ConfigError(
      `etcd.endpoints must be https:// URLs when tributary.etcd.ssl.* is set; ${plain.join(',')} is not`,
      'etcd.endpoints',
    )
  }
  const read = (name: string, path: string) => {
    try {
      return readFileSync(path)
    } catch (err) {
      throw new ConfigError(`Cannot read ${name} ${path}: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}`, name, path)
    }
  }
  return {
    ...(ca !== null ? { ca: read('tributary.etcd.ssl.ca.location', ca) } : {}),
    ...(cert !== null ? { cert: read('tributary.etcd.ssl.certificate.location', cert) } : {}),
    ...(key !== null ? { key: read('tributary.etcd.ssl.key.location', key) } : {}),
  }
}
