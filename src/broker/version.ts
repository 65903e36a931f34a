// The package version, read once from package.json (dist/src/broker → the package root).
import { readFileSync } from 'node:fs'

export const VERSION: string = (
  JSON.parse(readFileSync(new URL('../../../package.json', import.meta.url), 'utf8')) as { version: string }
).version
