// --command-config for OAUTHBEARER: the token comes from the file: URL of
// sasl.oauthbearer.token.endpoint.url (or its TRIBUTARY_ variable), read on each connection; a
// missing or non-file URL is a usage error naming the key.
import assert from 'node:assert/strict'
import { mkdtemp, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { describe, it } from 'node:test'
import { pathToFileURL } from 'node:url'
import { clientSecurityFromProperties } from '../../../src/cli/command-config.js'
import { UsageError } from '../../../src/cli/options.js'

const props = (entries: Record<string, string>) => new Map(Object.entries(entries))
const base = { 'security.protocol': 'SASL_PLAINTEXT', 'sasl.mechanism': 'OAUTHBEARER' }

describe('--command-config with OAUTHBEARER', () => {
  it('reads the token file on each use', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'cc-oauth-'))
    try {
      const file = join(dir, 'token')
      await writeFile(file, 'first.token.x\n')
      const s = clientSecurityFromProperties(
        props({ ...base, 'sasl.oauthbearer.token.endpoint.url': pathToFileURL(file).href }),
        {},
        'test',
      )
      const token = s!.sasl!.token as () => Promise<string>
      assert.equal(await token(), 'first.token.x')
      await writeFile(file, 'second.token.y')
      assert.equal(await token(), 'second.token.y')
      // The environment variable stands for the key.
      const e = clientSecurityFromProperties(
        props(base),
        { TRIBUTARY_SASL_OAUTHBEARER_TOKEN_ENDPOINT_URL: pathToFileURL(file).href },
        'test',
      )
      assert.equal(await (e!.sasl!.token as () => Promise<string>)(), 'second.token.y')
    } finally {
      await rm(dir, { recursive: true, force: true })
    }
  })

  it('refuses a missing or non-file URL, naming the key', () => {
    const cases: Record<string, string>[] = [{}, { 'sasl.oauthbearer.token.endpoint.url': 'https://idp.example/token' }]
    for (const extra of cases) {
      assert.throws(
        () => clientSecurityFromProperties(props({ ...base, ...extra }), {}, 'test'),
        (err: Error) => err instanceof UsageError && err.message.includes('sasl.oauthbearer.token.endpoint.url'),
      )
    }
  })
})
