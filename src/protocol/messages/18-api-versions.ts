// ApiVersions (key 18), v0–4; flexible from v3 (KIP-511 adds the client's software name/version).
// The response always travels with response header v0, even in flexible versions (see header.ts).
import { f, message } from '../schema.js'

export const ApiVersionsRequest = message({
  apiKey: 18,
  name: 'ApiVersions',
  versions: '0-4',
  flexible: '3+',
  fields: {
    clientSoftwareName: f.string('3+'),
    clientSoftwareVersion: f.string('3+'),
  },
})

export const ApiVersionsResponse = message({
  apiKey: 18,
  name: 'ApiVersions',
  versions: '0-4',
  flexible: '3+',
  fields: {
    errorCode: f.int16('0+'),
    apiKeys: f.array('0+', {
      apiKey: f.int16('0+'),
      minVersion: f.int16('0+'),
      maxVersion: f.int16('0+'),
    }),
    throttleTimeMs: f.int32('1+'),
    supportedFeatures: f.array(
      '3+',
      { name: f.string('3+'), minVersion: f.int16('3+'), maxVersion: f.int16('3+') },
      { tagged: '3+', tag: 0 },
    ),
    finalizedFeaturesEpoch: f.int64('3+', { tagged: '3+', tag: 1, default: -1 }),
    finalizedFeatures: f.array(
      '3+',
      { name: f.string('3+'), maxVersionLevel: f.int16('3+'), minVersionLevel: f.int16('3+') },
      { tagged: '3+', tag: 2 },
    ),
    zkMigrationReady: f.bool('3+', { tagged: '3+', tag: 3, default: false }),
  },
})
