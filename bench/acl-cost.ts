// The authorizer's cost per request: broker CPU (from /proc, user + system) per Metadata request
// (one named topic) and per Produce request (one record, acks=1), with no authorizer, with the
// StandardAuthorizer and no ACL (allow.everyone.if.no.acl.found=true), and with 1,000 ACLs
// (literal and prefixed topic ACLs, group ACLs, one ALLOW for the bench topic). The target is at
// most 5 % more CPU per request with 1,000 ACLs than without an authorizer. Broker CPU comes in
// clock ticks of 10 ms, so the per-request figures carry a few % of noise on a shared machine;
// the bench therefore also times the decision itself in this process (StandardAuthorizer over the
// same 1,000 ACLs, a million calls), which is what the authorizer adds to each check.
//   npm run build && node dist/bench/acl-cost.js [requests=4000] [rounds=3]
import { spawn } from 'node:child_process'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { type Admin, Kafka, logLevel, type Producer } from 'kafkajs'
import { AclOperation as Op, AclPermissionType as Perm, PatternType as Pat, ResourceType as Res } from '../src/ports/authorizer.js'
import { cpuSecondsOf, sleep } from './harness/util.js'
import { TRIBUTARY_MAIN } from './harness/brokers.js'
import { userPrincipal } from '../src/network/principal.js'
import { StandardAuthorizer } from '../src/security/acl/standard-authorizer.js'
import { silentLogger } from '../src/util/logger.js'
import type { AclBinding } from '../src/ports/authorizer.js'
import type { SecurityEntryKind } from '../src/ports/metadata-store.js'

const REQUESTS = Number(process.argv[2] ?? 4000)
const ROUNDS = Number(process.argv[3] ?? 3)
const TOPIC = 'bench-acl'
const STANDARD = 'org.apache.kafka.metadata.authorizer.StandardAuthorizer'

interface Mode {
  name: string
  overrides: Record<string, string>
  acls: number
}

const MODES: Mode[] = [
  { name: 'no authorizer', overrides: {}, acls: 0 },
  { name: 'authorizer, 0 ACLs', overrides: { 'authorizer.class.name': STANDARD, 'allow.everyone.if.no.acl.found': 'true' }, acls: 0 },
  { name: 'authorizer, 1000 ACLs', overrides: { 'authorizer.class.name': STANDARD, 'allow.everyone.if.no.acl.found': 'true' }, acls: 1000 },
]

/** 1,000 bindings: the ones the bench needs first, then literal, prefixed and group ACLs of other principals and names. */
function thousandAcls(): Parameters<Admin['createAcls']>[0]['acl'] {
  const base = { resourcePatternType: Pat.LITERAL, principal: 'User:ANONYMOUS', host: '*', operation: Op.ALL, permissionType: Perm.ALLOW }
  const out: Array<Record<string, unknown>> = [
    { ...base, resourceType: Res.CLUSTER, resourceName: 'kafka-cluster' },
    { ...base, resourceType: Res.TOPIC, resourceName: TOPIC },
  ]
  for (let i = 0; out.length < 1000; i++) {
    const kind = i % 4
    if (kind === 0) out.push({ ...base, resourceType: Res.TOPIC, resourceName: `topic-${i}`, principal: `User:u${i % 50}` })
    else if (kind === 1)
      out.push({ ...base, resourceType: Res.TOPIC, resourceName: `bench-${i}-`, resourcePatternType: Pat.PREFIXED, operation: Op.READ })
    else if (kind === 2) out.push({ ...base, resourceType: Res.GROUP, resourceName: `group-${i}`, permissionType: Perm.DENY })
    else out.push({ ...base, resourceType: Res.TOPIC, resourceName: `b${i % 10}`, resourcePatternType: Pat.PREFIXED, host: '10.0.0.1' })
  }
  return out as never
}

async function run(mode: Mode): Promise<{ metadataUs: number; produceUs: number }> {
  const dir = mkdtempSync(join(tmpdir(), 'tributary-acl-bench-'))
  const port = 20000 + Math.floor(Math.random() * 20000)
  const args = [TRIBUTARY_MAIN, 'start', '--log-level', 'warn', '--override', `listeners=PLAINTEXT://127.0.0.1:${port}`]
  for (const [k, v] of Object.entries({ 'log.dirs': join(dir, 'data'), ...mode.overrides })) args.push('--override', `${k}=${v}`)
  const child = spawn(process.execPath, args, { stdio: 'ignore' })
  const kafka = new Kafka({ clientId: 'acl-bench', brokers: [`127.0.0.1:${port}`], logLevel: logLevel.NOTHING, retry: { retries: 20 } })
  let admin: Admin | undefined
  let producer: Producer | undefined
  try {
    admin = kafka.admin()
    await admin.connect()
    await admin.createTopics({ topics: [{ topic: TOPIC, numPartitions: 1 }], waitForLeaders: true })
    const acls = thousandAcls().slice(0, mode.acls)
    for (let i = 0; i < acls.length; i += 100) await admin.createAcls({ acl: acls.slice(i, i + 100) })
    producer = kafka.producer()
    await producer.connect()
    // Warm-up, then the measured loops.
    for (let i = 0; i < 500; i++) await admin.fetchTopicMetadata({ topics: [TOPIC] })
    for (let i = 0; i < 500; i++) await producer.send({ topic: TOPIC, acks: 1, messages: [{ value: 'x' }] })
    await sleep(200)
    let cpu0 = cpuSecondsOf(child.pid!)
    for (let i = 0; i < REQUESTS; i++) await admin.fetchTopicMetadata({ topics: [TOPIC] })
    const metadataUs = ((cpuSecondsOf(child.pid!) - cpu0) / REQUESTS) * 1e6
    cpu0 = cpuSecondsOf(child.pid!)
    for (let i = 0; i < REQUESTS; i++) await producer.send({ topic: TOPIC, acks: 1, messages: [{ value: 'x' }] })
    const produceUs = ((cpuSecondsOf(child.pid!) - cpu0) / REQUESTS) * 1e6
    return { metadataUs, produceUs }
  } finally {
    await producer?.disconnect().catch(() => {})
    await admin?.disconnect().catch(() => {})
    child.kill('SIGTERM')
    await new Promise((resolve) => child.once('exit', resolve))
    rmSync(dir, { recursive: true, force: true })
  }
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!

const results = new Map<string, { metadata: number[]; produce: number[] }>(MODES.map((m) => [m.name, { metadata: [], produce: [] }]))
for (let round = 0; round < ROUNDS; round++) {
  // Interleaved rounds, so a noisy moment of the shared machine touches every mode.
  for (const mode of MODES) {
    const r = await run(mode)
    results.get(mode.name)!.metadata.push(r.metadataUs)
    results.get(mode.name)!.produce.push(r.produceUs)
  }
}
const base = results.get(MODES[0]!.name)!
console.log(`broker CPU per request, median of ${ROUNDS} rounds of ${REQUESTS} requests (µs)`)
console.log('mode                     metadata   vs none   produce   vs none')
for (const m of MODES) {
  const r = results.get(m.name)!
  const md = median(r.metadata)
  const pr = median(r.produce)
  const pct = (x: number, b: number) => `${x >= b ? '+' : ''}${(((x - b) / b) * 100).toFixed(1)} %`
  console.log(
    `${m.name.padEnd(24)} ${md.toFixed(1).padStart(8)} ${pct(md, median(base.metadata)).padStart(9)} ${pr.toFixed(1).padStart(9)} ${pct(pr, median(base.produce)).padStart(9)}`,
  )
}

/** ns per decision of the StandardAuthorizer over the same 1,000 ACLs (in this process). */
async function decisionNs(aclCount: number): Promise<number> {
  const entries = new Map<string, string>()
  const store = {
    getSecurityEntries: (_kind: SecurityEntryKind) => entries,
    setSecurityEntries: async (_kind: SecurityEntryKind, e: Readonly<Record<string, string | null>>) => {
      for (const [k, v] of Object.entries(e)) if (v !== null) entries.set(k, v)
    },
    onChange: () => {},
  }
  const a = new StandardAuthorizer({ store, superUsers: '', allowEveryoneIfNoAclFound: true, logger: silentLogger })
  const bindings = (thousandAcls() as unknown as Array<AclBinding & { resourcePatternType: number }>)
    .slice(0, aclCount)
    .map(({ resourcePatternType, ...b }) => ({ ...b, patternType: resourcePatternType }))
  await a.createAcls(bindings)
  const who = { principal: userPrincipal('ANONYMOUS'), remoteAddress: '127.0.0.1' }
  const N = 1_000_000
  let allowed = 0
  for (let i = 0; i < 100_000; i++) if (a.authorize(who, Op.WRITE, Res.TOPIC, TOPIC)) allowed++
  const t0 = performance.now()
  for (let i = 0; i < N; i++) if (a.authorize(who, i & 1 ? Op.WRITE : Op.DESCRIBE, Res.TOPIC, TOPIC)) allowed++
  const ns = ((performance.now() - t0) * 1e6) / N
  if (allowed === 0) throw new Error('the bench topic should be allowed')
  return ns
}
console.log(
  `StandardAuthorizer decision (WRITE/DESCRIBE on ${TOPIC}): ${(await decisionNs(0)).toFixed(0)} ns with 0 ACLs, ${(await decisionNs(1000)).toFixed(0)} ns with 1000 ACLs`,
)
