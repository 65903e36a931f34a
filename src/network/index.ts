// The network layer's public surface: the socket server, listener parsing and the dispatcher contract.
export { FrameDecoder, FrameSizeError } from './framing.js'
export { parseListeners, parseSecurityProtocolMap, SECURITY_PROTOCOLS } from './listeners.js'
export type { ParsedListener, SecurityProtocol } from './listeners.js'
export { NetworkServer } from './server.js'
export type { NetworkServerOptions } from './server.js'
export { CloseConnection, DEFAULT_NETWORK_CONFIG } from './types.js'
export type { ConnectionInfo, Dispatcher, ListenerConfig, NetworkConfig, NetworkMetrics, ResponseChunks } from './types.js'
