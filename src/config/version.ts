// The package version, read once from package.json: the nearest one above this module that is
// Tributary's (dist/src/config/ when compiled, dist/bin/ when bundled — the package root either way).
import { readFileSync } from 'node:fs'

function packageVersion(): string {
  for (let dir = new URL('./', import.meta.url); ; dir = new URL('../', dir)) {
    try {
      const pkg = JSON.parse(readFileSync(new URL('package.json', dir), 'utf8')) as { name?: string; version?: string }
      if (pkg.name === 'tributary' && typeof pkg.version === 'string') return pkg.version
    } catch {
      // no package.json here (or not JSON): look one level up
    }
    if (dir.pathname === '/') throw new Error(`no package.json of tributary above ${import.meta.url}`)
  }
}

export const VERSION: string = packageVersion()
