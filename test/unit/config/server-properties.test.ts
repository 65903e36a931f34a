import assert from 'node:assert/strict'
import { mkdtemp, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { after, before, describe, it } from 'node:test'
import { ConfigError, loadBrokerConfig } from '../../../src/config/config.js'
import { formatProperties, PropertiesSyntaxError, parseProperties, parsePropertiesEntries } from '../../../src/util/properties.js'

describe('parseProperties (java.util.Properties syntax)', () => {
  it('reads key=value, key: value and key value, skipping # and ! comments and blank lines', () => {
    const p = parseProperties(
      ['# comment', '! also a comment', '', '   ', 'a=1', 'b: 2', 'c 3', '  d   =   4', 'e\t:\tfive', 'f'].join('\n'),
    )
    assert.deepEqual(Object.fromEntries(p), { a: '1', b: '2', c: '3', d: '4', e: 'five', f: '' })
  })

  it('keeps trailing blanks of values, and separators after the first', () => {
    const p = parseProperties('url=http://x:1/a=b  \nk==v\nk2 = : v')
    assert.equal(p.get('url'), 'http://x:1/a=b  ')
    assert.equal(p.get('k'), '=v')
    assert.equal(p.get('k2'), ': v')
  })

  it('joins continuation lines and drops their leading blanks', () => {
    const p = parseProperties('listeners=PLAINTEXT://a:1,\\\n    INTERNAL://b:2\nnext=x')
    assert.equal(p.get('listeners'), 'PLAINTEXT://a:1,INTERNAL://b:2')
    assert.equal(p.get('next'), 'x')
  })

  it('an even number of trailing backslashes is an escaped backslash, not a continuation', () => {
    const p = parseProperties('path=C:\\\\dir\\\\\nother=1')
    assert.equal(p.get('path'), 'C:\\dir\\')
    assert.equal(p.get('other'), '1')
  })

  it('a continuation at end of file ends the value; a continued line starting with # is not a comment', () => {
    assert.equal(parseProperties('a=x\\').get('a'), 'x')
    assert.equal(parseProperties('a=x\\\n#y').get('a'), 'x#y')
  })

  it('a comment line ending in a backslash does not continue', () => {
    const p = parseProperties('# comment \\\na=1')
    assert.equal(p.get('a'), '1')
  })

  it('handles \\t \\n \\r \\f, \\uXXXX and escaped separators in keys', () => {
    const p = parseProperties('k\\=ey\\:x\\ y=\\u0041\\u00e9\\t\\n\\q')
    assert.equal(p.get('k=ey:x y'), 'Aé\t\nq')
  })

  it('accepts \\r\\n and \\r line ends', () => {
    const p = parseProperties('a=1\r\nb=2\rc=3')
    assert.deepEqual(Object.fromEntries(p), { a: '1', b: '2', c: '3' })
  })

  it('the last of duplicate keys wins; entries keep their line numbers', () => {
    const text = 'a=1\n\n# x\na=2\nb=\\\n  3'
    assert.equal(parseProperties(text).get('a'), '2')
    assert.deepEqual(parsePropertiesEntries(text), [
      { key: 'a', value: '1', line: 1 },
      { key: 'a', value: '2', line: 4 },
      { key: 'b', value: '3', line: 5 },
    ])
  })

  it('refuses a malformed \\u escape with the line number', () => {
    assert.throws(
      () => parseProperties('a=1\nb=\\u00G1'),
      (e: unknown) => e instanceof PropertiesSyntaxError && e.line === 2,
    )
  })

  it('formatProperties round-trips awkward keys and values', () => {
    const entries: [string, string][] = [
      ['plain', 'value'],
      ['with space=:', ' leading blank, trailing \\ and\nnewline'],
      ['#hash', '!bang'],
    ]
    assert.deepEqual([...parseProperties(formatProperties(entries, 'header\nline two'))], entries)
  })
})

describe('loadBrokerConfig from a server.properties file', () => {
  let dir: string
  before(async () => {
    dir = await mkdtemp(join(tmpdir(), 'tributary-config-'))
  })
  after(async () => {
    await rm(dir, { recursive: true, force: true })
  })

  it('reads a Kafka-style file', async () => {
    const file = join(dir, 'server.properties')
    await writeFile(
      file,
      [
        '############################# Server Basics #############################',
        'node.id=1',
        'listeners=PLAINTEXT://:19092,\\',
        '          CONTROLLER://:19093',
        'controller.listener.names=CONTROLLER',
        'process.roles=broker,controller',
        'controller.quorum.voters=1@localhost:19093',
        'num.network.threads=3',
        'log.dirs : /var/lib/tributary',
        'num.partitions 3',
        'log.retention.hours=1',
      ].join('\n'),
    )
    const { config, warnings } = await loadBrokerConfig({ file, env: {} })
    assert.deepEqual(warnings, [])
    assert.equal(config.nodeId, 1)
    assert.equal(config.get('num.partitions'), 3)
    assert.deepEqual(config.logDirs, ['/var/lib/tributary'])
    assert.deepEqual(
      config.listeners.map((l) => `${l.name}://${l.host}:${l.port}`),
      ['PLAINTEXT://0.0.0.0:19092'],
      'the KRaft controller listener is not bound',
    )
    assert.deepEqual(
      config.advertisedListeners.map((l) => `${l.name}://${l.host}:${l.port}`),
      ['PLAINTEXT://127.0.0.1:19092'],
    )
    assert.equal(config.origin('log.retention.hours'), 'file')
  })

  it('names the file and line of a bad value', async () => {
    const file = join(dir, 'bad.properties')
    await writeFile(file, '# x\nnum.partitions=1\nnum.partitions=zero\n')
    await assert.rejects(loadBrokerConfig({ file, env: {} }), (e: unknown) => {
      assert.ok(e instanceof ConfigError)
      assert.match(e.message, /num\.partitions/)
      assert.match(e.message, /"zero"/)
      assert.match(e.message, /bad\.properties line 3/)
      assert.match(e.message, /expected a 32-bit integer/)
      assert.equal(e.key, 'num.partitions')
      return true
    })
  })

  it('names the file of a syntax error and of a missing file', async () => {
    const file = join(dir, 'syntax.properties')
    await writeFile(file, 'a=\\uZZZZ\n')
    await assert.rejects(loadBrokerConfig({ file, env: {} }), (e: unknown) => {
      assert.ok(e instanceof ConfigError)
      assert.match(e.message, /syntax\.properties line 1/)
      return true
    })
    await assert.rejects(loadBrokerConfig({ file: join(dir, 'nope.properties'), env: {} }), (e: unknown) => {
      assert.ok(e instanceof ConfigError)
      assert.match(e.message, /nope\.properties: ENOENT/)
      return true
    })
  })
})
