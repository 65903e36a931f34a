// Splits a body of concatenated JSON values ({"a":1}{"b":2}, with or without whitespace between
// them) into the text of each value: REST Proxy v3's streaming produce sends records so.
//
// Rules: no I/O, one pass, no recursion (nesting depth does not grow the stack). A value that is
// cut short or unbalanced ends the list with its error, after the values before it.
export type JsonPiece = { text: string } | { error: string }

export function splitConcatenatedJson(body: string): JsonPiece[] {
  const out: JsonPiece[] = []
  let i = 0
  const n = body.length
  while (i < n) {
    while (i < n && /\s/.test(body[i]!)) i++
    if (i >= n) break
    const start = i
    const first = body[i]!
    if (first !== '{' && first !== '[') {
      // A scalar: up to the next whitespace or the start of an object or array.
      while (i < n && !/[\s{[]/.test(body[i]!)) i++
      out.push({ text: body.slice(start, i) })
      continue
    }
    let depth = 0
    let inString = false
    for (; i < n; i++) {
      const c = body[i]!
      if (inString) {
        if (c === '\\') i++
        else if (c === '"') inString = false
        continue
      }
      if (c === '"') inString = true
      else if (c === '{' || c === '[') depth++
      else if (c === '}' || c === ']') {
        depth--
        if (depth === 0) {
          i++
          break
        }
      }
    }
    if (depth !== 0) {
      out.push({ error: `Unexpected end of input: a JSON value starting at offset ${start} is not closed` })
      return out
    }
    out.push({ text: body.slice(start, i) })
  }
  return out
}
