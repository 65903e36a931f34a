// The broker keys of the HTTP listener (src/http/): where it listens, and the limits of its push
// streams. config-defs.ts assembles the tables.
import type { ConfigKeyDef } from './config-key.js'

export const HTTP_KEYS = [
  {
    name: 'tributary.http.listeners',
    type: 'list',
    default: 'http://127.0.0.1:8082',
    scope: 'broker',
    doc: 'Comma-separated http://host:port or https://host:port addresses of the HTTP listener (https: TLS with the broker ssl.* key store, listener.name.http.ssl.* first): REST (Confluent REST Proxy v3 shapes), SSE and WebSocket push, the console at / and Prometheus metrics at /metrics. Port 0 picks a free port; empty turns HTTP off. startBroker() leaves it off unless asked.',
  },
  {
    name: 'tributary.http.stream.max.buffered.bytes',
    type: 'int',
    default: '1048576',
    validator: { min: 1024 },
    scope: 'broker',
    doc: 'Bytes one SSE or WebSocket subscriber may have waiting to be sent. A subscriber that falls further behind has its stream closed with a reason; its cursor resumes it.',
  },
  {
    name: 'tributary.http.stream.heartbeat.ms',
    type: 'int',
    default: '15000',
    validator: { min: 100 },
    scope: 'broker',
    doc: 'How often an idle SSE stream gets a comment line (and a WebSocket a ping), so that proxies keep it open.',
  },
  {
    name: 'tributary.http.authentication',
    type: 'string',
    default: 'none',
    validator: { oneOf: ['none', 'basic'] },
    scope: 'broker',
    doc: 'basic: every HTTP request needs an Authorization: Basic header with a Kafka user and password; the HTTP routes then reach Kafka as that user over a SASL listener (SASL PLAIN or SCRAM), so its authentication, ACLs and quotas are the Kafka ones. none: the routes reach Kafka over a PLAINTEXT (else SSL) listener as User:ANONYMOUS.',
  },
  {
    name: 'tributary.http.sasl.mechanism',
    type: 'string',
    default: null,
    validator: { oneOf: ['PLAIN', 'SCRAM-SHA-256', 'SCRAM-SHA-512'] },
    scope: 'broker',
    doc: 'With tributary.http.authentication=basic, the one SASL mechanism the HTTP routes log users in with. Default: SCRAM-SHA-512, SCRAM-SHA-256 and PLAIN, those the SASL listener enables, tried in that order until one accepts the user (the one that did is remembered).',
  },
] as const satisfies readonly ConfigKeyDef[]
