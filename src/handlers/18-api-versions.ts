// ApiVersions v0–4. The advertised ranges come from the handler registry. Unknown versions never
// reach here: the dispatcher answers them in v0 form (KIP-511).
import { ApiVersionsRequest, ApiVersionsResponse } from '../protocol/messages/18-api-versions.js'
import { defineHandler } from './define.js'

export default defineHandler(ApiVersionsRequest, ApiVersionsResponse, { minVersion: 0, maxVersion: 4 }, (ctx) => ({
  errorCode: 0,
  apiKeys: ctx.apis.map((a) => ({ ...a })),
  throttleTimeMs: 0,
  finalizedFeaturesEpoch: -1,
}))
