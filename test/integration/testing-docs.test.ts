// docs/testing.md promises examples that work: every file under examples/testing/ is run here by
// its own test runner (node --test, vitest, jest) as a subprocess and must pass with at least one
// test passed and none failed; and every code block the doc presents as one of those files must
// be that file, byte for byte, so the doc cannot drift from what is tested. The examples import the
// package by its name, `tributary`, which resolves to this build through package.json "exports".
import assert from 'node:assert/strict'
import { execFile } from 'node:child_process'
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { describe, test } from 'node:test'
import { fileURLToPath } from 'node:url'

const root = fileURLToPath(new URL('../../../', import.meta.url))
const EXAMPLES = 'examples/testing'
const DOC = 'docs/testing.md'
/** Generous: three runners start on a shared 2-core machine. */
const RUN_TIMEOUT_MS = 240_000

interface RunResult {
  code: number | null
  stdout: string
  stderr: string
}

function run(args: string[]): Promise<RunResult> {
  // Without NODE_TEST_CONTEXT, which this runner sets: `node --test` inside a test would otherwise
  // report to the parent and run nothing itself.
  const { NODE_TEST_CONTEXT: _, ...env } = process.env
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      args,
      { cwd: root, env: { ...env, NO_COLOR: '1', FORCE_COLOR: '0' }, timeout: RUN_TIMEOUT_MS, maxBuffer: 64 << 20 },
      (err, stdout, stderr) => {
        const code = err ? (typeof (err as { code?: unknown }).code === 'number' ? (err as { code: number }).code : null) : 0
        resolve({ code, stdout, stderr })
      },
    )
  })
}

interface Counts {
  passed: number
  failed: number
}

/** How each example is run, chosen by its file name; the counts come from the runner's own report. */
function runnerFor(file: string): ((path: string, out: string) => Promise<Counts & RunResult>) | undefined {
  if (file.startsWith('node-test')) {
    return async (path) => {
      const r = await run(['--test', '--test-reporter=tap', path])
      const count = (name: string) => Number(new RegExp(`^# ${name} (\\d+)$`, 'm').exec(r.stdout)?.[1] ?? Number.NaN)
      return { ...r, passed: count('pass'), failed: count('fail') + count('cancelled') }
    }
  }
  if (file.startsWith('vitest')) {
    return async (path, out) => {
      const report = join(out, 'vitest.json')
      const r = await run(['node_modules/vitest/vitest.mjs', 'run', path, '--reporter=json', `--outputFile=${report}`])
      const j = JSON.parse(readFileSync(report, 'utf8'))
      return { ...r, passed: j.numPassedTests, failed: j.numFailedTests + j.numFailedTestSuites }
    }
  }
  if (file.startsWith('jest')) {
    return async (path, out) => {
      const report = join(out, 'jest.json')
      const r = await run([
        '--experimental-vm-modules',
        'node_modules/jest/bin/jest.js',
        '--rootDir',
        EXAMPLES,
        '--ci',
        '--json',
        `--outputFile=${report}`,
        path,
      ])
      const j = JSON.parse(readFileSync(report, 'utf8'))
      return { ...r, passed: j.numPassedTests, failed: j.numFailedTests + j.numFailedTestSuites }
    }
  }
  return undefined
}

const examples = readdirSync(join(root, EXAMPLES))
  .filter((f) => /\.test\.[cm]?js$/.test(f))
  .sort()

describe('docs/testing.md examples', () => {
  test('there are examples for node:test, vitest and jest, and each has a runner', () => {
    for (const prefix of ['node-test', 'vitest', 'jest']) {
      assert.ok(
        examples.some((f) => f.startsWith(prefix)),
        `an example for ${prefix} in ${EXAMPLES}`,
      )
    }
    for (const f of examples) assert.ok(runnerFor(f), `no runner for ${f}: name it node-test-*, vitest* or jest*`)
  })

  test('every example file is quoted in the doc, exactly as it is', () => {
    const doc = readFileSync(join(root, DOC), 'utf8')
    const quoted = new Map<string, string>()
    for (const m of doc.matchAll(/\[`(examples\/testing\/[^`]+)`\]\([^)]*\):\n\n```js\n([\s\S]*?)```/g)) {
      assert.ok(!quoted.has(m[1]!), `${m[1]} is quoted twice`)
      quoted.set(m[1]!, m[2]!)
    }
    // Any other mention of an example file in front of a code block must use the form above.
    const looseMentions = [...doc.matchAll(/(examples\/testing\/[\w.-]+)[^\n]*\n\n```/g)].map((m) => m[1])
    for (const f of looseMentions) assert.ok(quoted.has(f!), `${f} introduces a code block but is not quoted as [\`file\`](link):`)
    for (const f of examples) {
      const path = `${EXAMPLES}/${f}`
      assert.ok(quoted.has(path), `${DOC} quotes ${path}`)
      assert.equal(quoted.get(path), readFileSync(join(root, path), 'utf8'), `${DOC}'s copy of ${path} differs from the file`)
    }
    for (const path of quoted.keys())
      assert.ok(examples.includes(path.slice(EXAMPLES.length + 1)), `${DOC} quotes ${path}, which does not exist`)
  })

  for (const file of examples) {
    test(`${file} passes under its runner`, async (t) => {
      const out = mkdtempSync(join(tmpdir(), 'tributary-docs-'))
      t.after(() => rmSync(out, { recursive: true, force: true }))
      const runner = runnerFor(file)
      assert.ok(runner, `a runner for ${file}`)
      const r = await runner(`${EXAMPLES}/${file}`, out)
      const detail = `exit ${r.code}\n--- stdout\n${r.stdout.slice(-4000)}\n--- stderr\n${r.stderr.slice(-4000)}`
      assert.equal(r.code, 0, detail)
      assert.ok(r.passed >= 1, `at least one test passed\n${detail}`)
      assert.equal(r.failed, 0, detail)
    })
  }
})
