// ApiVersions (key 18), v0–5; flexible from v3. The response always travels with response header
// v0, even in flexible versions (see header.ts).
//   v1  throttle time in the response       v2  same layout (responses sent before throttling)
//   v3  flexible; the client's software name and version (KIP-511); supported/finalized features
//       as tagged fields (KIP-584)
//   v4  same layout; features whose supported minimum is 0 may now be listed (KAFKA-17011)
//   v5  the client may name the cluster and node it means to reach (KIP-1242); a broker that is
//       not that node answers REBOOTSTRAP_REQUIRED
import { f, type Infer, message } from '../schema.js'

export const ApiVersionsRequest = message({
  apiKey: 18,
  name: 'ApiVersions',
  versions: '0-5',
  flexible: '3+',
  fields: {
    clientSoftwareName: f.string('3+'),
    clientSoftwareVersion: f.string('3+'),
    clusterId: f.string('5+', { nullable: '5+', default: null }),
    nodeId: f.int32('5+', { default: -1 }),
  },
})

export const ApiVersionsResponse = message({
  apiKey: 18,
  name: 'ApiVersions',
  versions: '0-5',
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

export type ApiVersionsRequestData = Infer<typeof ApiVersionsRequest>
export type ApiVersionsResponseData = Infer<typeof ApiVersionsResponse>
