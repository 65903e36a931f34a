// The machine a benchmark ran on, recorded with every result.
import { readFileSync } from 'node:fs'
import { cpus, release, totalmem, type } from 'node:os'
import { run } from './util.js'

export interface Machine {
  cores: number
  cpuModel: string
  memoryGiB: number
  os: string
  node: string
  java: string | null
  maven: string | null
}

function firstLine(s: string): string {
  return s.trim().split('\n')[0]?.trim() ?? ''
}

const ANSI = new RegExp(`${String.fromCharCode(27)}\\[[0-9;]*m`, 'g')

async function versionOf(cmd: string, args: string[]): Promise<string | null> {
  try {
    const r = await run(cmd, args, { timeoutMs: 30_000 })
    if (r.code !== 0) return null
    // `java -version` prints to stderr; strip ANSI colours that mvn adds.
    return firstLine((r.stderr + r.stdout).replace(ANSI, '')) || null
  } catch {
    return null
  }
}

function cpuModel(): string {
  const fromNode = cpus()[0]?.model?.trim()
  if (fromNode) return fromNode
  try {
    return /^model name\s*:\s*(.+)$/m.exec(readFileSync('/proc/cpuinfo', 'utf8'))?.[1]?.trim() ?? 'unknown'
  } catch {
    return 'unknown'
  }
}

export async function describeMachine(): Promise<Machine> {
  const [java, maven] = await Promise.all([versionOf('java', ['-version']), versionOf('mvn', ['-v'])])
  return {
    cores: cpus().length,
    cpuModel: cpuModel(),
    memoryGiB: Math.round((totalmem() / 2 ** 30) * 10) / 10,
    os: `${type()} ${release()}`,
    node: process.version,
    java,
    maven,
  }
}
