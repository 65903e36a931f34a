// ApiVersions v0–5. The advertised ranges come from the handler registry; the features from
// cluster/features.ts. Unknown versions never reach here: the dispatcher answers them in v0 form
// (KIP-511). As KafkaApis answers, in this order:
//   - INVALID_REQUEST for a v3+ software name or version that is not [a-zA-Z0-9] at both ends with
//     only [a-zA-Z0-9.-] between (ApiVersionsRequest.isValid), or, from v5, a cluster id without a
//     node id or a node id without a cluster id;
//   - REBOOTSTRAP_REQUIRED from v5 when the request names a cluster and node that are not this
//     broker (KIP-1242: the client's address now leads to another broker or cluster);
//   - else the APIs and features (below v4, features whose supported minimum is 0 are left out).
// Error answers carry no API list and no features.
import { finalizedFeatures, finalizedFeaturesEpoch, supportedFeatures } from '../cluster/features.js'
import { ErrorCode } from '../protocol/errors.js'
import { type ApiVersionsRequestData, ApiVersionsRequest, ApiVersionsResponse } from '../protocol/messages/18-api-versions.js'
import { defineHandler } from './define.js'

const SOFTWARE_NAME_OR_VERSION = /^[a-zA-Z0-9](?:[a-zA-Z0-9.-]*[a-zA-Z0-9])?$/

function isValid(req: ApiVersionsRequestData, version: number): boolean {
  if (version >= 5 && (req.clusterId === null) !== (req.nodeId === -1)) return false
  if (version < 3) return true
  return SOFTWARE_NAME_OR_VERSION.test(req.clientSoftwareName) && SOFTWARE_NAME_OR_VERSION.test(req.clientSoftwareVersion)
}

export default defineHandler(ApiVersionsRequest, ApiVersionsResponse, { minVersion: 0, maxVersion: 5 }, (ctx, req) => {
  const v = ctx.apiVersion
  if (!isValid(req, v)) return { errorCode: ErrorCode.INVALID_REQUEST.code, throttleTimeMs: 0 }
  if (v >= 5 && req.clusterId !== null && (req.clusterId !== ctx.broker.clusterId || req.nodeId !== ctx.broker.nodeId)) {
    ctx.broker.logger.debug(
      `ApiVersions from ${ctx.conn.remoteAddress} (client ${ctx.header.clientId}) names cluster ${req.clusterId} node ${req.nodeId}: answering REBOOTSTRAP_REQUIRED`,
    )
    return { errorCode: ErrorCode.REBOOTSTRAP_REQUIRED.code, throttleTimeMs: 0 }
  }
  return {
    errorCode: 0,
    apiKeys: ctx.apis.map((a) => ({ ...a })),
    throttleTimeMs: 0,
    supportedFeatures: supportedFeatures(v),
    finalizedFeaturesEpoch: finalizedFeaturesEpoch(),
    finalizedFeatures: finalizedFeatures(),
  }
})
