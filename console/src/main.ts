// The console: a hash-routed single-page app. #/ the cluster (brokers, topics), #/topics/NAME a
// topic (partitions, configs, message browser, live tail, produce), #/groups the consumer and share
// groups, #/groups/ID and #/share-groups/ID a group with its lag, members and an offset reset,
// #/security the SCRAM users and the ACLs (add, delete).
import { type Acl, api, cluster, type BrowsedRecord, HttpError } from './api.js'
import { bytes, type Child, h, table } from './dom.js'

const app = document.getElementById('app')!
let leaving: Array<() => void> = []

function show(...children: Child[]): void {
  app.replaceChildren(...children.filter((c): c is Node | string => c !== null && c !== undefined && c !== false).map((c) => (typeof c === 'object' ? c : String(c))))
}

function problem(err: unknown): HTMLElement {
  const message = err instanceof HttpError ? `${err.status}: ${err.message}` : err instanceof Error ? err.message : String(err)
  return h('p', { class: 'error' }, message)
}

// ---- payloads -------------------------------------------------------------------------------

type Encoding = BrowsedRecord['encoding']

function bytesOf(data: string, encoding: Encoding): Uint8Array {
  if (encoding === 'text') return new TextEncoder().encode(data)
  return Uint8Array.from(atob(data), (c) => c.charCodeAt(0))
}

function hex(b: Uint8Array): string {
  const lines: string[] = []
  for (let i = 0; i < b.length; i += 16) {
    const row = [...b.subarray(i, i + 16)]
    lines.push(`${i.toString(16).padStart(6, '0')}  ${row.map((x) => x.toString(16).padStart(2, '0')).join(' ')}`)
  }
  return lines.join('\n')
}

function render(data: string | null, encoding: Encoding, asHex: boolean): Child {
  if (data === null) return h('span', { class: 'muted' }, 'null')
  if (asHex) return h('pre', {}, hex(bytesOf(data, encoding)))
  if (encoding === 'base64') return h('pre', {}, h('span', { class: 'pill' }, 'base64'), ' ', data)
  const t = data.trim()
  if (t.startsWith('{') || t.startsWith('[')) {
    try {
      return h('pre', { class: 'json' }, JSON.stringify(JSON.parse(t), null, 2))
    } catch {
      // not JSON: shown as text
    }
  }
  return h('pre', {}, data)
}

function recordRows(records: BrowsedRecord[], asHex: boolean): Child[][] {
  return records.map((r) => [
    r.partition,
    r.offset,
    h('span', { class: 'mono' }, new Date(r.timestamp).toISOString()),
    render(r.key, r.encoding, asHex),
    render(r.value, r.encoding, asHex),
    r.headers.length === 0 ? '' : h('pre', {}, r.headers.map((x) => `${x.key}: ${x.value ?? 'null'}`).join('\n')),
  ])
}

// ---- views ----------------------------------------------------------------------------------

async function overview(): Promise<void> {
  const [id, brokers, topics] = await Promise.all([cluster(), api.brokers(), api.topics()])
  show(
    h('h1', {}, 'Cluster ', h('span', { class: 'mono' }, id)),
    h(
      'section',
      { id: 'brokers' },
      h('h2', {}, `Brokers (${brokers.length})`),
      table(
        ['id', 'host', 'port', 'rack'],
        brokers.map((b) => [b.broker_id, b.host, b.port, b.rack ?? '–']),
        [0, 2],
      ),
    ),
    h(
      'section',
      { id: 'topics' },
      h('h2', {}, `Topics (${topics.length})`),
      table(
        ['topic', 'partitions', 'replication factor', ''],
        topics
          .sort((a, b) => a.topic_name.localeCompare(b.topic_name))
          .map((t) => [
            h('a', { href: `#/topics/${encodeURIComponent(t.topic_name)}`, class: 'topic-link' }, t.topic_name),
            t.partitions_count,
            t.replication_factor,
            t.is_internal ? h('span', { class: 'pill' }, 'internal') : '',
          ]),
        [1, 2],
      ),
    ),
  )
}

async function topicView(name: string): Promise<void> {
  const t = await api.topic(name)
  const results = h('div', { id: 'browse-results' })
  const tail = h('tbody', { id: 'tail-rows' })
  const produced = h('p', { id: 'produce-result', class: 'muted' })
  const partitionOptions = [h('option', { value: '' }, 'all'), ...t.partitions.map((p) => h('option', { value: String(p.partition) }, String(p.partition)))]

  const browseForm = h(
    'form',
    {
      id: 'browse',
      onsubmit: async (e: Event) => {
        e.preventDefault()
        const f = new FormData(e.target as HTMLFormElement)
        const q = Object.fromEntries(['partition', 'offset', 'time', 'q', 'limit'].map((k) => [k, String(f.get(k) ?? '')]))
        if (q.time) q.time = new Date(q.time).toISOString()
        results.replaceChildren(h('p', { class: 'muted' }, 'Reading…'))
        try {
          const b = await api.browse(name, q)
          const asHex = f.get('hex') === 'on'
          results.replaceChildren(
            h('p', { class: 'muted' }, `${b.records.length} records (${b.scanned} scanned${b.complete ? '' : ', more to read'})`),
            table(['partition', 'offset', 'timestamp', 'key', 'value', 'headers'], recordRows(b.records, asHex), [0, 1]),
          )
        } catch (err) {
          results.replaceChildren(problem(err))
        }
      },
    },
    h('label', {}, 'partition', h('select', { name: 'partition' }, ...partitionOptions)),
    h('label', {}, 'from offset', h('input', { name: 'offset', type: 'number', min: 0, placeholder: 'latest' })),
    h('label', {}, 'from time', h('input', { name: 'time', type: 'datetime-local', step: 1 })),
    h('label', {}, 'key or value contains', h('input', { name: 'q', type: 'search' })),
    h('label', {}, 'limit', h('input', { name: 'limit', type: 'number', min: 1, max: 500, value: 50 })),
    h('label', {}, 'hex', h('input', { name: 'hex', type: 'checkbox' })),
    h('button', { type: 'submit' }, 'Find'),
  )

  let source: EventSource | null = null
  const stopTail = () => {
    source?.close()
    source = null
  }
  leaving.push(stopTail)
  const tailButton = h('button', { id: 'tail-toggle', type: 'button', class: 'secondary' }, 'Start live tail')
  tailButton.addEventListener('click', () => {
    if (source) {
      stopTail()
      tailButton.textContent = 'Start live tail'
      return
    }
    source = new EventSource(`/topics/${encodeURIComponent(name)}/events?from=latest`)
    source.onmessage = (ev) => {
      const r = JSON.parse(ev.data) as BrowsedRecord
      const row = recordRows([r], false)[0]!
      tail.prepend(h('tr', {}, ...row.map((c) => h('td', {}, c))))
      while (tail.children.length > 200) tail.lastElementChild?.remove()
    }
    source.onopen = () => {
      tailButton.textContent = 'Stop live tail'
      tailButton.dataset.live = 'yes'
    }
  })

  const produceForm = h(
    'form',
    {
      id: 'produce',
      onsubmit: async (e: Event) => {
        e.preventDefault()
        const f = new FormData(e.target as HTMLFormElement)
        try {
          const r = await api.produce(name, String(f.get('key') ?? ''), String(f.get('value') ?? ''), String(f.get('partition') ?? ''))
          produced.className = 'ok'
          produced.textContent = `written to partition ${r.partition_id} at offset ${r.offset}`
        } catch (err) {
          produced.replaceChildren(problem(err))
        }
      },
    },
    h('label', {}, 'partition', h('select', { name: 'partition' }, h('option', { value: '' }, 'by key'), ...partitionOptions.slice(1).map((o) => o.cloneNode(true)))),
    h('label', {}, 'key', h('input', { name: 'key' })),
    h('label', {}, 'value', h('textarea', { name: 'value', rows: 1, cols: 40 })),
    h('button', { type: 'submit' }, 'Produce'),
  )

  show(
    h('h1', {}, 'Topic ', h('span', { class: 'mono' }, t.name), t.internal ? h('span', { class: 'pill' }, 'internal') : ''),
    h(
      'section',
      { id: 'partitions' },
      h('h2', {}, `Partitions (${t.partitions.length}) · replication factor ${t.replicationFactor} · ${bytes(t.sizeBytes)}`),
      table(
        ['partition', 'leader', 'replicas', 'in sync', 'earliest', 'latest', 'size'],
        t.partitions.map((p) => [
          p.partition,
          p.leader < 0 ? h('span', { class: 'error' }, 'none') : p.leader,
          p.replicas.join(', '),
          p.isr.length < p.replicas.length ? h('span', { class: 'error' }, p.isr.join(', ') || 'none') : p.isr.join(', '),
          p.earliestOffset ?? '–',
          p.latestOffset ?? '–',
          bytes(p.sizeBytes),
        ]),
        [0, 1, 4, 5, 6],
      ),
    ),
    h(
      'section',
      { id: 'configs' },
      h('h2', {}, 'Configs that differ from the defaults'),
      t.configs.length === 0 ? h('p', { class: 'muted' }, 'none') : table(['name', 'value', 'source'], t.configs.map((c) => [h('code', {}, c.name), c.value ?? 'null', c.source])),
    ),
    h('section', {}, h('h2', {}, 'Messages'), browseForm, results),
    h('section', {}, h('h2', {}, 'Live tail'), tailButton, table(['partition', 'offset', 'timestamp', 'key', 'value', 'headers'], []), ),
    h('section', {}, h('h2', {}, 'Produce a record'), produceForm, produced),
  )
  // The tail's rows go in the (empty) table just drawn.
  const tailTable = tailButton.nextElementSibling as HTMLTableElement
  tailTable.tBodies[0]!.replaceWith(tail)
}

async function groupsView(): Promise<void> {
  const [groups, shareGroups] = await Promise.all([api.groups(), api.shareGroups()])
  show(
    h('h1', {}, 'Groups'),
    h(
      'section',
      { id: 'groups' },
      h('h2', {}, 'Consumer groups'),
      groups.length === 0
        ? h('p', { class: 'muted' }, 'no consumer groups')
        : table(
            ['group', 'state', 'assignor'],
            groups.map((g) => [h('a', { href: `#/groups/${encodeURIComponent(g.consumer_group_id)}` }, g.consumer_group_id), g.state, g.partition_assignor || '–']),
          ),
    ),
    h(
      'section',
      { id: 'share-groups' },
      h('h2', {}, 'Share groups (queues)'),
      shareGroups.length === 0
        ? h('p', { class: 'muted' }, 'no share groups')
        : table(
            ['group', 'state', 'members'],
            shareGroups.map((g) => [h('a', { href: `#/share-groups/${encodeURIComponent(g.group_id)}` }, g.group_id), g.state, g.members]),
            [2],
          ),
    ),
  )
}

/** The offset reset form of a group page; `reset` commits (consumer groups) or sets start offsets (share groups). */
function resetSection(names: string[], reset: (topic: string, to: string) => Promise<{ offsets: Array<{ partition: number; offset: number }> }>): HTMLElement {
  const outcome = h('p', { id: 'reset-result', class: 'muted' })
  return h(
    'section',
    {},
    h('h2', {}, 'Reset offsets'),
    h('p', { class: 'muted' }, 'The group must have no active members.'),
    h(
      'form',
      {
        id: 'reset',
        onsubmit: async (e: Event) => {
          e.preventDefault()
          const f = new FormData(e.target as HTMLFormElement)
          try {
            const r = await reset(String(f.get('topic')), String(f.get('to')))
            outcome.className = 'ok'
            outcome.textContent = `committed ${r.offsets.map((o) => `${o.partition}:${o.offset}`).join(' ')}`
            // Show the new lag, unless the user went elsewhere meanwhile.
            const here = location.hash
            setTimeout(() => {
              if (location.hash === here) void route()
            }, 300)
          } catch (err) {
            outcome.replaceChildren(problem(err))
          }
        },
      },
      h('label', {}, 'topic', h('select', { name: 'topic' }, ...names.map((n) => h('option', { value: n }, n)))),
      h('label', {}, 'to', h('input', { name: 'to', value: 'earliest', title: 'earliest, latest or an offset' })),
      h('button', { type: 'submit' }, 'Reset'),
    ),
    outcome,
  )
}

const userTopics = async () => (await api.topics()).filter((t) => !t.is_internal).map((t) => t.topic_name)

async function groupView(id: string): Promise<void> {
  const [lags, topics] = await Promise.all([api.lags(id), userTopics()])
  const total = lags.reduce((n, l) => n + Math.max(0, l.lag), 0)
  const names = [...new Set([...lags.map((l) => l.topic_name), ...topics])]
  show(
    h('h1', {}, 'Group ', h('span', { class: 'mono' }, id)),
    h(
      'section',
      { id: 'lags' },
      h('h2', {}, `Lag ${total}`),
      table(
        ['topic', 'partition', 'committed', 'end', 'lag', 'consumer'],
        lags.map((l) => [l.topic_name, l.partition_id, l.current_offset, l.log_end_offset, l.lag, l.consumer_id || '–']),
        [1, 2, 3, 4],
      ),
    ),
    resetSection(names, (topic, to) => api.reset(id, topic, to)),
  )
}

async function shareGroupView(id: string): Promise<void> {
  const [g, topics] = await Promise.all([api.shareGroup(id), userTopics()])
  const names = [...new Set([...g.offsets.map((o) => o.topic), ...topics])]
  show(
    h('h1', {}, 'Share group ', h('span', { class: 'mono' }, id), ' ', h('span', { class: 'muted' }, g.state)),
    h(
      'section',
      { id: 'share-lags' },
      h('h2', {}, `Lag ${g.total_lag}`),
      g.offsets.length === 0
        ? h('p', { class: 'muted' }, 'the group has read no partition yet')
        : table(
            ['topic', 'partition', 'start offset', 'lag'],
            g.offsets.map((o) => [o.topic, o.partition, o.start_offset, o.lag < 0 ? '–' : o.lag]),
            [1, 2, 3],
          ),
    ),
    h(
      'section',
      { id: 'share-members' },
      h('h2', {}, `Members ${g.members.length}`),
      g.members.length === 0
        ? h('p', { class: 'muted' }, 'no members')
        : table(
            ['member', 'client', 'host', 'partitions'],
            g.members.map((m) => [h('span', { class: 'mono' }, m.member_id), m.client_id, m.host, m.partitions.join(' ')]),
          ),
    ),
    resetSection(names, (topic, to) => api.shareReset(id, topic, to)),
  )
}

const ACL_FIELDS: Array<[keyof Acl, string]> = [
  ['principal', 'User:alice'],
  ['host', '*'],
  ['operation', 'READ'],
  ['permission', 'ALLOW'],
  ['resource_type', 'TOPIC'],
  ['resource_name', 'orders'],
  ['pattern_type', 'LITERAL'],
]

async function securityView(): Promise<void> {
  const sec = await api.security()
  const outcome = h('p', { id: 'acl-result', class: 'muted' })
  const acls =
    sec.acls === null
      ? h('p', { class: 'muted' }, 'this broker has no authorizer (authorizer.class.name is not set): every request is allowed')
      : sec.acls.length === 0
        ? h('p', { class: 'muted' }, 'no ACLs')
        : table(
            ['principal', 'host', 'operation', 'permission', 'resource', 'pattern', ''],
            sec.acls.map((a) => [
              a.principal,
              a.host,
              a.operation,
              a.permission,
              `${a.resource_type} ${a.resource_name}`,
              a.pattern_type,
              h(
                'button',
                {
                  class: 'delete-acl',
                  onclick: async () => {
                    try {
                      await api.deleteAcl(a)
                      void route()
                    } catch (err) {
                      outcome.replaceChildren(problem(err))
                    }
                  },
                },
                'Delete',
              ),
            ]),
          )
  show(
    h('h1', {}, 'Security'),
    h(
      'section',
      { id: 'users' },
      h('h2', {}, 'SCRAM users'),
      sec.users.length === 0
        ? h('p', { class: 'muted' }, 'no SCRAM users')
        : table(
            ['user', 'credentials'],
            sec.users.map((u) => [u.user, u.credentials.map((c) => `${c.mechanism} (${c.iterations} iterations)`).join(', ')]),
          ),
    ),
    h('section', { id: 'acls' }, h('h2', {}, 'ACLs'), acls),
    sec.acls === null
      ? null
      : h(
          'section',
          {},
          h('h2', {}, 'Add an ACL'),
          h(
            'form',
            {
              id: 'acl-create',
              onsubmit: async (e: Event) => {
                e.preventDefault()
                const f = new FormData(e.target as HTMLFormElement)
                const acl = Object.fromEntries(ACL_FIELDS.map(([k]) => [k, String(f.get(k) ?? '')])) as unknown as Acl
                try {
                  await api.createAcl(acl)
                  void route()
                } catch (err) {
                  outcome.replaceChildren(problem(err))
                }
              },
            },
            ...ACL_FIELDS.map(([k, example]) => h('label', {}, k.replace('_', ' '), h('input', { name: k, placeholder: example, value: k === 'host' ? '*' : k === 'permission' ? 'ALLOW' : k === 'pattern_type' ? 'LITERAL' : '' }))),
            h('button', { type: 'submit' }, 'Add'),
          ),
          outcome,
        ),
  )
}

async function route(): Promise<void> {
  for (const f of leaving) f()
  leaving = []
  const parts = location.hash.replace(/^#\/?/, '').split('/').map(decodeURIComponent)
  try {
    if (parts[0] === 'topics' && parts[1]) await topicView(parts[1])
    else if (parts[0] === 'groups' && parts[1]) await groupView(parts[1])
    else if (parts[0] === 'share-groups' && parts[1]) await shareGroupView(parts[1])
    else if (parts[0] === 'groups') await groupsView()
    else if (parts[0] === 'security') await securityView()
    else await overview()
  } catch (err) {
    show(problem(err))
  }
}

window.addEventListener('hashchange', () => void route())
void cluster().then(
  (id) => {
    document.getElementById('cluster-id')!.textContent = `cluster ${id}`
  },
  () => {},
)
void route()
