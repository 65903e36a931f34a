#!/usr/bin/env node
// Runs the compiled tests (dist/test/**/*.test.js) with Node's test runner.
// Usage: node scripts/run-tests.mjs [unit|integration|<path fragment>...]
// Node 20's runner takes no globs, so the files are listed here.
import { spawnSync } from 'node:child_process'
import { readdirSync, statSync } from 'node:fs'
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

const files = walk(root, [])
  .filter((f) => filters.length === 0 || filters.some((x) => f.includes(x)))
  .sort()
if (files.length === 0) {
  console.error(`no test files under ${root} match ${filters.join(' ') || '(all)'}`)
  process.exit(1)
}
const result = spawnSync(
  process.execPath,
  // --test-force-exit: a test file's process ends once its tests have run, even if a client library
  // left a handle open (the etcd3 client's reconnect timers sometimes did, holding the run forever).
  ['--enable-source-maps', '--test', '--test-force-exit', '--test-concurrency=2', ...files],
  { stdio: 'inherit' },
)
process.exit(result.status ?? 1)
