import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { ConfigError } from '../../../src/config/config.js'
import { type CliDeps, type CliStartOptions, runCli } from '../../../src/cli/program.js'
import { silentLogger } from '../../../src/util/logger.js'

interface Harness {
  deps: CliDeps
  started: CliStartOptions[]
  exits: number[]
  out: string[]
  err: string[]
  closes: number
  signal(name: 'SIGINT' | 'SIGTERM'): void
}

function harness(start?: (opts: CliStartOptions) => Promise<void>): Harness {
  const handlers = new Map<string, Array<() => void>>()
  const h: Harness = {
    started: [],
    exits: [],
    out: [],
    err: [],
    closes: 0,
    signal: (name) => {
      for (const fn of handlers.get(name) ?? []) fn()
    },
    deps: {
      version: '9.9.9',
      async startBroker(opts) {
        h.started.push(opts)
        await start?.(opts)
        return {
          bootstrap: '127.0.0.1:9092',
          close: async () => {
            h.closes++
          },
        }
      },
      onSignal: (name, fn) => handlers.set(name, [...(handlers.get(name) ?? []), fn]),
      exit: (code) => h.exits.push(code),
      stdout: (t) => h.out.push(String(t)),
      stderr: (t) => h.err.push(t),
      createLogger: () => silentLogger,
    },
  }
  return h
}

const argv = (...args: string[]) => ['node', 'tributary', ...args]
const tick = () => new Promise((r) => setImmediate(r))

describe('tributary CLI', () => {
  it('start with a positional server.properties and repeated --override, as kafka-server-start.sh', async () => {
    const h = harness()
    await runCli(argv('start', 'server.properties', '--override', 'num.partitions=3', '--override', 'log.retention.hours=1'), h.deps)
    assert.equal(h.started.length, 1)
    assert.equal(h.started[0]!.configFile, 'server.properties')
    assert.deepEqual(h.started[0]!.overrides, ['num.partitions=3', 'log.retention.hours=1'])
    assert.deepEqual(h.exits, [])
  })

  it('start with --config, or with nothing', async () => {
    const h = harness()
    await runCli(argv('start', '--config', 'a.properties'), h.deps)
    await runCli(argv('start'), h.deps)
    assert.equal(h.started[0]!.configFile, 'a.properties')
    assert.equal(h.started[1]!.configFile, undefined)
    assert.deepEqual(h.started[1]!.overrides, [])
  })

  it("--version prints package.json's version and exits 0", async () => {
    const h = harness()
    await runCli(argv('--version'), h.deps)
    assert.equal(h.out.join('').trim(), '9.9.9')
    assert.deepEqual(h.exits, [0])
  })

  it('a ConfigError prints its message without a stack trace and exits 2', async () => {
    const h = harness(async () => {
      throw new ConfigError('Invalid value "x" for configuration num.partitions: expected a 32-bit integer')
    })
    await runCli(argv('start'), h.deps)
    assert.deepEqual(h.exits, [2])
    assert.equal(h.err.join(''), 'tributary: Invalid value "x" for configuration num.partitions: expected a 32-bit integer\n')
  })

  it('a malformed --override exits 2 before starting anything', async () => {
    const h = harness()
    await runCli(argv('start', '--override', 'novalue'), h.deps)
    assert.deepEqual(h.exits, [2])
    assert.equal(h.started.length, 0)
    assert.match(h.err.join(''), /novalue/)
  })

  it('usage errors exit 2', async () => {
    const h = harness()
    await runCli(argv('start', '--bogus'), h.deps)
    assert.deepEqual(h.exits, [2])
    assert.equal(h.started.length, 0)
  })

  it('other startup failures exit 1', async () => {
    const h = harness(async () => {
      throw new Error('EADDRINUSE')
    })
    await runCli(argv('start'), h.deps)
    assert.deepEqual(h.exits, [1])
    assert.match(h.err.join(''), /failed to start: Error: EADDRINUSE/)
  })

  it('first SIGTERM closes once and exits 0; a second signal exits 1 at once', async () => {
    const h = harness()
    await runCli(argv('start'), h.deps)
    h.signal('SIGTERM')
    await tick()
    assert.equal(h.closes, 1)
    assert.deepEqual(h.exits, [0])

    const h2 = harness()
    await runCli(argv('start'), h2.deps)
    h2.signal('SIGINT')
    h2.signal('SIGINT')
    assert.deepEqual(h2.exits, [1])
    await tick()
    assert.equal(h2.closes, 1)
  })

  it('a signal during startup closes the broker once it is up', async () => {
    let release!: () => void
    const h = harness(() => new Promise<void>((r) => (release = r)))
    const running = runCli(argv('start'), h.deps)
    await tick()
    h.signal('SIGINT')
    assert.equal(h.closes, 0)
    release()
    await running
    await tick()
    assert.equal(h.closes, 1)
    assert.deepEqual(h.exits, [0])
  })
})
