// Deterministic sample values for any declared message at any version: every field present in that
// version gets a non-default value (so a codec that drops or misplaces a field fails the round trip),
// and nullable fields alternate between null and a value.
import { inRange, type Field, type Message, type Type } from '../../src/protocol/schema.js'
import { defaultValue } from '../../src/protocol/schema.js'

export function sampleMessage(msg: Message<any>, version: number, seed = 1): any {
  return sampleStruct(msg.fields, version, { n: seed })
}

function sampleStruct(fields: Record<string, Field<any>>, version: number, st: { n: number }): any {
  const out: any = {}
  for (const [name, fld] of Object.entries(fields)) {
    if (!inRange(fld.versions, version)) {
      out[name] = defaultValue(fld, version)
      continue
    }
    st.n++
    if (inRange(fld.nullable, version) && st.n % 3 === 0) {
      out[name] = null
      continue
    }
    out[name] = sampleType(fld.type, version, st)
  }
  return out
}

function sampleType(type: Type<any>, version: number, st: { n: number }): any {
  const n = st.n++
  switch (type.kind) {
    case 'array': {
      const len = 1 + (n % 2)
      return Array.from({ length: len }, () => sampleType(type.item, version, st))
    }
    case 'struct':
      return sampleStruct(type.fields as Record<string, Field<any>>, version, st)
    case 'primitive':
      switch (type.name) {
        case 'bool':
          return true
        case 'int8':
          return (n % 100) + 1
        case 'int16':
          return (n % 30000) + 1
        case 'uint16':
          return (n % 60000) + 1
        case 'int32':
          return n * 1000 + 7
        case 'uint32':
          return n * 1000 + 3_000_000_000
        case 'int64':
          return n * 1_000_000_007 + 5
        case 'float64':
          return n + 0.5
        case 'string':
          return `s${n}-ü`
        case 'bytes':
          return Buffer.from([n & 0xff, 1, 2, 3])
        case 'records':
          return Buffer.from([9, 8, 7, n & 0xff])
        case 'uuid': {
          const b = Buffer.alloc(16)
          b.writeUInt32BE(n + 1, 12)
          return b.toString('base64url')
        }
      }
  }
}
