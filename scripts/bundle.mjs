#!/usr/bin/env node
// Bundles the `tributary` command (dist/src/cli/main.js, compiled by tsc) into dist/bin/: one
// entry file and a few chunks, split where the program loads code on demand (the broker for
// `tributary start`, each client command, the etcd client). Node then reads about thirty files
// instead of two hundred, and `tributary start` answered its first request 224 ms after the spawn
// instead of 406 ms (docs/benchmarks.md, start-up). npm packages stay outside the bundle, loaded
// from node_modules as before; the library entry (dist/src/index.js) is not bundled.
import { copyFileSync, mkdirSync, rmSync } from 'node:fs'
import { build } from 'esbuild'

const outdir = 'dist/bin'
rmSync(outdir, { recursive: true, force: true })
await build({
  entryPoints: { tributary: 'dist/src/cli/main.js' },
  outdir,
  bundle: true,
  splitting: true,
  format: 'esm',
  platform: 'node',
  target: 'node20',
  packages: 'external',
  // Maps to the TypeScript sources through tsc's own maps (node --enable-source-maps).
  sourcemap: 'linked',
  logLevel: 'warning',
})

// The web console (console/): one script for the browser, beside its page and style sheet, in
// dist/console/, which the HTTP listener serves (src/http/console/routes.ts).
const consoleDir = 'dist/console'
rmSync(consoleDir, { recursive: true, force: true })
mkdirSync(consoleDir, { recursive: true })
await build({
  entryPoints: { app: 'console/src/main.ts' },
  outdir: consoleDir,
  bundle: true,
  format: 'esm',
  platform: 'browser',
  target: 'es2022',
  minify: true,
  sourcemap: 'linked',
  logLevel: 'warning',
})
for (const f of ['index.html', 'app.css']) copyFileSync(`console/${f}`, `${consoleDir}/${f}`)
