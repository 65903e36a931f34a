// The house's floors (docs/architecture.md §2): every file of src/ imports only from its own layer
// or the layers below, and no files import each other in a circle — type-only imports included.
// Read from the sources (not the build), so a type-only import counts too.
import assert from 'node:assert/strict'
import { readdirSync, readFileSync, statSync } from 'node:fs'
import { dirname, join, relative, resolve } from 'node:path'
import { test } from 'node:test'
import { fileURLToPath } from 'node:url'

/** dist/test/unit/layers.test.js → the repository's src/. */
const SRC = fileURLToPath(new URL('../../../src/', import.meta.url))

/** Lowest first; layers on one line may import each other's files (never in a circle). */
const FLOORS: string[][] = [
  ['util'],
  ['protocol'],
  ['storage', 'network', 'config'],
  ['ports'],
  ['cluster', 'client'],
  ['replication', 'telemetry', 'security'],
  ['coordinator', 'share'],
  ['handlers', 'http'],
  ['broker'],
  ['cli', 'index.ts'],
]

function floorOf(file: string): number {
  const top = relative(SRC, file).split('/')[0]!
  const i = FLOORS.findIndex((names) => names.includes(top))
  assert.ok(i >= 0, `${relative(SRC, file)} is in no layer of docs/architecture.md §2`)
  return i
}

function sources(dir: string, out: string[] = []): string[] {
  for (const name of readdirSync(dir)) {
    const path = join(dir, name)
    if (statSync(path).isDirectory()) sources(path, out)
    else if (name.endsWith('.ts')) out.push(path)
  }
  return out
}

/** The files of src/ a file imports (static imports and re-exports, type-only ones too, and import()). */
function importsOf(file: string): string[] {
  const text = readFileSync(file, 'utf8')
  const out: string[] = []
  const patterns = [/^\s*(?:import|export)\b[^'"]*?\bfrom\s+'(\.[^']+)'/gm, /\bimport\(\s*'(\.[^']+)'\s*\)/g]
  for (const re of patterns) {
    for (const m of text.matchAll(re)) out.push(resolve(dirname(file), m[1]!.replace(/\.js$/, '.ts')))
  }
  return out
}

const files = sources(SRC)
const graph = new Map(files.map((f) => [f, importsOf(f).filter((g) => g.startsWith(SRC))]))

test('no file imports from a higher layer', () => {
  const upward: string[] = []
  for (const [file, deps] of graph) {
    for (const dep of deps) if (floorOf(dep) > floorOf(file)) upward.push(`${relative(SRC, file)} → ${relative(SRC, dep)}`)
  }
  assert.deepEqual(upward, [])
})

test('no files import each other in a circle', () => {
  const state = new Map<string, 'open' | 'done'>()
  const circles: string[] = []
  const visit = (file: string, path: string[]) => {
    if (state.get(file) === 'done') return
    if (state.get(file) === 'open') {
      circles.push([...path.slice(path.indexOf(file)), file].map((f) => relative(SRC, f)).join(' → '))
      return
    }
    state.set(file, 'open')
    for (const dep of graph.get(file) ?? []) visit(dep, [...path, file])
    state.set(file, 'done')
  }
  for (const f of files) visit(f, [])
  assert.deepEqual(circles, [])
})

test('the check sees imports at all', () => {
  // A guard on the guard: a parser that found nothing would pass the two tests above.
  const total = [...graph.values()].reduce((n, deps) => n + deps.length, 0)
  assert.ok(total > 500, `only ${total} imports found`)
  assert.ok(graph.get(join(SRC, 'handlers/01-fetch.ts'))!.includes(join(SRC, 'ports/replicas.ts')))
})
