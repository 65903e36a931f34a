// A few DOM helpers: elements from a tag, attributes and children; tables from rows.
export type Child = Node | string | number | null | undefined | false
type Attrs = Record<string, string | number | boolean | ((e: Event) => void) | undefined>

export function h(tag: string, attrs: Attrs = {}, ...children: Child[]): HTMLElement {
  const el = document.createElement(tag)
  for (const [k, v] of Object.entries(attrs)) {
    if (v === undefined || v === false) continue
    if (typeof v === 'function') el.addEventListener(k.replace(/^on/, ''), v)
    else if (v === true) el.setAttribute(k, '')
    else el.setAttribute(k, String(v))
  }
  for (const c of children) if (c !== null && c !== undefined && c !== false) el.append(typeof c === 'object' ? c : String(c))
  return el
}

export function table(headers: string[], rows: Child[][], numeric: number[] = []): HTMLElement {
  const cls = (i: number) => (numeric.includes(i) ? 'num' : undefined)
  return h(
    'table',
    {},
    h('thead', {}, h('tr', {}, ...headers.map((t, i) => h('th', { class: cls(i) }, t)))),
    h('tbody', {}, ...rows.map((r) => h('tr', {}, ...r.map((c, i) => h('td', { class: cls(i) }, c))))),
  )
}

export function bytes(n: number | null | undefined): string {
  if (n === null || n === undefined) return '–'
  const units = ['B', 'KiB', 'MiB', 'GiB', 'TiB']
  let v = n
  let u = 0
  while (v >= 1024 && u < units.length - 1) {
    v /= 1024
    u++
  }
  return `${u === 0 ? v : v.toFixed(1)} ${units[u]}`
}
