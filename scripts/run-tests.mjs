#!/usr/bin/env node
// Runs the compiled tests (dist/test/**/*.test.js) with Node's test runner.
// Usage: node scripts/run-tests.mjs [unit|integration|<path fragment>...]
// Node 20's runner takes no globs, so the files are listed here.
import { spawn } from 'node:child_process'
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

// Each group's report is passed through as it comes and scanned for failing tests, which are listed
// again at the very end: CI keeps only the tail of a long run, and a failure reported minutes
// before the end would otherwise be out of sight.
const failures = []

function scan(line, state) {
  const notOk = /^(\s*)not ok \d+ - (.*)$/.exec(line)
  if (notOk) {
    failures.push({ depth: notOk[1].length, name: notOk[2], location: '', error: '' })
    state.open = failures[failures.length - 1]
    state.block = undefined
    return
  }
  const open = state.open
  if (open === undefined) return
  if (state.block !== undefined) {
    // The lines of a YAML block scalar (`error: |-`) are indented deeper than its key.
    if (line.trim() === '' || line.search(/\S/) > state.block) {
      if (line.trim() !== '' && open.error.length < 300) open.error = `${open.error} ${line.trim()}`.trim().slice(0, 300)
      return
    }
    state.block = undefined
  }
  const field = /^(\s*)(error|location): (.*)$/.exec(line)
  if (field && open[field[2]] === '') {
    if (/^[|>][-+]?$/.test(field[3])) state.block = field[1].length
    else open[field[2]] = field[3].slice(0, 300)
  } else if (/^\s*(ok|not ok) \d+ /.test(line) || /^\s*\.\.\.$/.test(line)) state.open = undefined
}

function run(group, extra) {
  if (group.length === 0) return Promise.resolve(0)
  const child = spawn(process.execPath, ['--enable-source-maps', '--test', ...extra, '--test-concurrency=2', ...group], {
    stdio: ['inherit', 'pipe', 'inherit'],
  })
  const state = { open: undefined, rest: '' }
  child.stdout.on('data', (chunk) => {
    process.stdout.write(chunk)
    const lines = (state.rest + chunk.toString('utf8')).split('\n')
    state.rest = lines.pop() ?? ''
    for (const line of lines) scan(line, state)
  })
  const timer = setTimeout(() => {
    console.error(`run-tests: the test run did not end within ${DEADLINE_MS / 60_000} min (a handle left open?)`)
    child.kill('SIGKILL')
  }, DEADLINE_MS)
  return new Promise((resolve) => {
    child.on('close', (code) => {
      clearTimeout(timer)
      if (state.rest !== '') scan(state.rest, state)
      resolve(code ?? 1)
    })
  })
}

const status = await run(natural, [])
const forcedStatus = await run(forced, ['--test-force-exit'])
if (failures.length > 0) {
  // In the report a subtest's line comes before its parent's, indented by 4 per level: so listed.
  console.log(`\nrun-tests: ${failures.length} failing test line(s):`)
  for (const f of failures) {
    const pad = '  '.repeat(f.depth / 4)
    console.log(`${pad}not ok - ${f.name}${f.location ? ` (${f.location})` : ''}`)
    if (f.error) console.log(`${pad}  error: ${f.error}`)
  }
}
if (status || forcedStatus) console.log(`run-tests: exit codes ${status} (natural group), ${forcedStatus} (etcd group)`)
process.exit(status || forcedStatus)
