#!/usr/bin/env node
// Runs the compiled tests (dist/test/**/*.test.js) with Node's test runner.
// Usage: node scripts/run-tests.mjs [unit|integration|<path fragment>...]
// Node 20's runner takes no globs, so the files are listed here.
import { spawnSync } from 'node:child_process'
import { readdirSync, readFileSync, statSync } from 'node:fs'
import { join } from 'node:path'

const root = 'dist/test'
const filters = process.argv.slice(2)

function walk(dir, out) {
  for (const name of readdirSync(dir)) {
    const path = join(dir, name)
    if (statSync(path).isDirectory()) walk(path, out)
    else if (name.endsWith('.test.js')) out.push(path)
  }
  return out
}

// The files that took a minute or more in CI run first, longest first: with two at a time, one of
// them started last would run alone at the end while the other slot sits idle.
const SLOW_FIRST = [
  'share-java',
  'sasl-ssl',
  'quota-kafka-configs',
  'java-consumer-protocol',
  'acl-quota-java',
  'share-node-java',
  'sasl-oauthbearer',
  'groups-kcat',
  'share-fetch-kafka',
  'soak',
  'quota-java',
  'testing-docs',
  'txn-java',
]
const rank = (f) => {
  const i = SLOW_FIRST.findIndex((name) => f.endsWith(`/${name}.test.js`))
  return i < 0 ? SLOW_FIRST.length : i
}
const files = walk(root, [])
  .filter((f) => filters.length === 0 || filters.some((x) => f.includes(x)))
  .sort((a, b) => rank(a) - rank(b) || a.localeCompare(b))
if (files.length === 0) {
  console.error(`no test files under ${root} match ${filters.join(' ') || '(all)'}`)
  process.exit(1)
}
// --test-force-exit ends a test file's process once its tests have run, even if a client library
// left a handle open — the etcd3 client's reconnect timers sometimes did, holding the run forever.
// But with one process per file the forced exit can drop the report of a file's last tests before
// the runner reads it (nodejs/node#64833: fewer tests counted, a failing test's name lost; the
// file's exit code still fails the run). So only the files that hold an etcd client in the test
// process get it; every other file runs to its natural end, and each group has a deadline, so a
// leaked handle fails the run loudly instead of holding it.
const usesEtcdClient = (f) => /helpers\/(cluster|etcd)\.js|from 'etcd3'/.test(readFileSync(f, 'utf8'))
const forced = files.filter(usesEtcdClient)
const natural = files.filter((f) => !forced.includes(f))
const DEADLINE_MS = 25 * 60_000

function run(group, extra) {
  if (group.length === 0) return 0
  const r = spawnSync(process.execPath, ['--enable-source-maps', '--test', ...extra, '--test-concurrency=2', ...group], {
    stdio: 'inherit',
    timeout: DEADLINE_MS,
    killSignal: 'SIGKILL',
  })
  if (r.error?.code === 'ETIMEDOUT')
    console.error(`run-tests: the test run did not end within ${DEADLINE_MS / 60_000} min (a handle left open?)`)
  return r.status ?? 1
}

const status = run(natural, [])
const forcedStatus = run(forced, ['--test-force-exit'])
process.exit(status || forcedStatus)
