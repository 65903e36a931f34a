// `tributary dev-certs --dir DIR [--host H ...] [--force]`: certificates for development and tests,
// made by running the `openssl` command (which must be installed): a local CA, a broker
// certificate for localhost, 127.0.0.1 and each --host (server and client use, so brokers can
// present it to each other), and a client certificate (CN=client) for mTLS, as PEM files:
//   ca.pem ca.key                         the CA (kept and reused when DIR already has one)
//   broker.pem broker.key broker-keystore.pem   certificate, key, and both in one file
//   client.pem client.key client-keystore.pem   (a keystore file is ssl.keystore.type=PEM's)
// Keys are EC P-256, unencrypted PKCS#8: these are not for production. The files of a set are
// written under temporary names and renamed into place, so a broker watching them (certificate
// reload) never reads a certificate with another's key.
import { execFile } from 'node:child_process'
import { randomBytes } from 'node:crypto'
import { existsSync, mkdirSync, mkdtempSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs'
import { isIP } from 'node:net'
import { join } from 'node:path'
import type { Command } from 'commander'
import { collect, runTool, ToolError, UsageError, withExamples } from './common.js'
import type { CliDeps } from './deps.js'

export interface DevCertsOptions {
  dir: string
  /** Extra names or addresses for the broker certificate (beside localhost and 127.0.0.1). */
  hosts?: readonly string[]
  /** Make a new CA even if DIR has one. */
  force?: boolean
  /** The openssl executable; default `openssl` on the PATH. */
  openssl?: string
}

export interface DevCerts {
  dir: string
  ca: string
  brokerCert: string
  brokerKey: string
  brokerKeystore: string
  clientCert: string
  clientKey: string
  clientKeystore: string
}

const HOST = /^[A-Za-z0-9*.:-]+$/

export function registerDevCertsCommand(program: Command, deps: CliDeps): void {
  withExamples(
    program
      .command('dev-certs')
      .description('write a development CA, a broker certificate and a client certificate (PEM), using the openssl command')
      .requiredOption('--dir <dir>', 'directory to write the files to (made if missing)')
      .option('--host <name>', 'another host name or address for the broker certificate; repeatable', collect, [])
      .option('--force', 'make a new CA even if the directory has one', false),
    ['tributary dev-certs --dir ./certs', 'tributary dev-certs --dir ./certs --host broker1.internal --host 10.0.0.5'],
  ).action((opts: { dir: string; host: string[]; force: boolean }) =>
    runTool(deps, 'dev-certs', async (io) => {
      const certs = await generateDevCerts({ dir: opts.dir, hosts: opts.host, force: opts.force })
      io.stdout(
        `wrote ${certs.dir}: ca.pem, broker.pem/broker.key (broker-keystore.pem), client.pem/client.key (client-keystore.pem)\n` +
          `broker: ssl.keystore.type=PEM ssl.keystore.location=${certs.brokerKeystore} ssl.truststore.type=PEM ssl.truststore.location=${certs.ca}\n`,
      )
    }),
  )
}

/** Writes the CA (unless DIR has one and force is off), the broker and the client certificates. */
export async function generateDevCerts(o: DevCertsOptions): Promise<DevCerts> {
  const hosts = ['localhost', '127.0.0.1', ...(o.hosts ?? [])]
  for (const h of hosts) if (!HOST.test(h)) throw new UsageError(`--host ${JSON.stringify(h)}: expected a host name or an address`)
  mkdirSync(o.dir, { recursive: true })
  const openssl = o.openssl ?? 'openssl'
  const run = (args: string[]) => runOpenssl(openssl, args)
  const out = (name: string) => join(o.dir, name)
  const tmp = mkdtempSync(join(o.dir, '.dev-certs-'))
  try {
    const at = (name: string) => join(tmp, name)
    const ec = ['-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes']
    if (o.force || !existsSync(out('ca.pem')) || !existsSync(out('ca.key'))) {
      await run(
        ['req', '-x509', '-new', ...ec, '-keyout', at('ca.key'), '-out', at('ca.pem'), '-days', '3650'].concat([
          '-subj',
          '/CN=Tributary development CA',
          '-addext',
          'basicConstraints=critical,CA:TRUE',
          '-addext',
          'keyUsage=critical,keyCertSign,cRLSign',
        ]),
      )
      renameSync(at('ca.key'), out('ca.key'))
      renameSync(at('ca.pem'), out('ca.pem'))
    }
    const sign = async (name: string, subject: string, ext: string) => {
      await run(['req', '-new', ...ec, '-keyout', at(`${name}.key`), '-out', at(`${name}.csr`), '-subj', subject])
      writeFileSync(at(`${name}.ext`), ext)
      await run(
        ['x509', '-req', '-in', at(`${name}.csr`), '-CA', out('ca.pem'), '-CAkey', out('ca.key')].concat([
          '-set_serial',
          `0x${randomBytes(12).toString('hex')}`,
          '-days',
          '825',
          '-extfile',
          at(`${name}.ext`),
          '-out',
          at(`${name}.pem`),
        ]),
      )
      writeFileSync(at(`${name}-keystore.pem`), readFileSync(at(`${name}.key`), 'utf8') + readFileSync(at(`${name}.pem`), 'utf8'))
      for (const f of [`${name}.key`, `${name}.pem`, `${name}-keystore.pem`]) renameSync(at(f), out(f))
    }
    const san = hosts.map((h) => (isIP(h) ? `IP:${h}` : `DNS:${h}`)).join(',')
    await sign('broker', '/CN=localhost', `basicConstraints=CA:FALSE\nsubjectAltName=${san}\nextendedKeyUsage=serverAuth,clientAuth\n`)
    await sign('client', '/CN=client', 'basicConstraints=CA:FALSE\nextendedKeyUsage=clientAuth\n')
  } finally {
    rmSync(tmp, { recursive: true, force: true })
  }
  return {
    dir: o.dir,
    ca: out('ca.pem'),
    brokerCert: out('broker.pem'),
    brokerKey: out('broker.key'),
    brokerKeystore: out('broker-keystore.pem'),
    clientCert: out('client.pem'),
    clientKey: out('client.key'),
    clientKeystore: out('client-keystore.pem'),
  }
}

function runOpenssl(openssl: string, args: string[]): Promise<void> {
  return new Promise((resolve, reject) => {
    execFile(openssl, args, { timeout: 60_000 }, (err, _stdout, stderr) => {
      if (!err) return resolve()
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') {
        reject(
          new ToolError(
            `cannot run ${openssl}: not found`,
            'dev-certs runs the openssl command: install OpenSSL (e.g. apt-get install openssl)',
          ),
        )
      } else reject(new ToolError(`openssl ${args[0]} failed: ${stderr.trim() || err.message}`))
    })
  })
}
