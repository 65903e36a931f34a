// The declaration DSL for Kafka protocol messages, and the codec builder (docs/architecture.md §1.2).
//
// Each API declares its request and response once, as data: field name, type, the versions the
// field exists in, the versions in which it may be null, and (for flexible versions) its tag.
// From a declaration we build, per version and at module load or first use, specialised encode and
// decode closures, and TypeScript infers the message's type. The facts (layouts, ranges) come from
// Kafka's published protocol; the declarations are our own.
//
// Encodings (KIP-482): in a message's flexible versions strings, bytes and arrays use compact
// (unsigned varint length + 1, 0 = null) forms and every struct ends with a tagged-field section;
// in the others they use int16 (strings) / int32 (bytes, arrays) lengths with -1 = null.

import { DecodeError, Reader } from './primitives/reader.js'
import { ZERO_UUID, uuidFromBytes, uuidToBytes } from './primitives/uuid.js'
import { Writer } from './primitives/writer.js'

// ---------------------------------------------------------------------------------------------
// Version ranges: '0+', '3-7', '5', 'none'.

export interface VersionRange {
  readonly min: number
  readonly max: number
}

const NONE: VersionRange = { min: 1, max: 0 }

export function parseVersions(spec: string): VersionRange {
  if (spec === 'none' || spec === '') return NONE
  let m = /^(\d+)\+$/.exec(spec)
  if (m) return { min: Number(m[1]), max: Number.MAX_SAFE_INTEGER }
  m = /^(\d+)-(\d+)$/.exec(spec)
  if (m) return { min: Number(m[1]), max: Number(m[2]) }
  m = /^(\d+)$/.exec(spec)
  if (m) return { min: Number(m[1]), max: Number(m[1]) }
  throw new Error(`bad version range: ${spec}`)
}

export function inRange(r: VersionRange, v: number): boolean {
  return v >= r.min && v <= r.max
}

// ---------------------------------------------------------------------------------------------
// Types and fields.

export type PrimitiveName =
  | 'bool'
  | 'int8'
  | 'int16'
  | 'uint16'
  | 'int32'
  | 'uint32'
  | 'int64'
  | 'float64'
  | 'string'
  | 'bytes'
  | 'records'
  | 'uuid'

export interface PrimitiveType<T> {
  readonly kind: 'primitive'
  readonly name: PrimitiveName
  readonly _t?: T
}

/** T is the array's own type (I[]). */
export interface ArrayType<T> {
  readonly kind: 'array'
  readonly item: Type<any>
  readonly _t?: T
}

export interface StructType<T> {
  readonly kind: 'struct'
  readonly fields: Fields
  readonly _t?: T
}

export type Type<T> = PrimitiveType<T> | ArrayType<T> | StructType<T>

export interface FieldOptions {
  /** Versions in which the field may be null. */
  nullable?: string
  /** Versions in which the field is a tagged field (KIP-482), with this tag. */
  tagged?: string
  tag?: number
  /** Value when the field is absent from a version, or a tagged field is not sent. */
  default?: unknown
}

export interface Field<T> {
  readonly type: Type<any>
  readonly versions: VersionRange
  readonly nullable: VersionRange
  readonly tagged: VersionRange
  readonly tag: number
  readonly default: unknown
  readonly _t?: T
}

export type Fields = { readonly [name: string]: Field<any> }

export type Infer<F> = F extends Field<infer T> ? T : F extends Message<infer T> ? T : never
export type InferFields<F extends Fields> = { -readonly [K in keyof F]: Infer<F[K]> }

type Nullable<O, T> = O extends { nullable: string } ? T | null : T

const prim = <T>(name: PrimitiveName): PrimitiveType<T> => ({ kind: 'primitive', name })

export const T = {
  bool: prim<boolean>('bool'),
  int8: prim<number>('int8'),
  int16: prim<number>('int16'),
  uint16: prim<number>('uint16'),
  int32: prim<number>('int32'),
  uint32: prim<number>('uint32'),
  int64: prim<number>('int64'),
  float64: prim<number>('float64'),
  string: prim<string>('string'),
  bytes: prim<Buffer>('bytes'),
  /** Record batches: a view into the frame when decoding; spliced without copying when encoding. */
  records: prim<Buffer | null>('records'),
  /** Kafka Uuid as 22 characters of base64url (see primitives/uuid.ts). */
  uuid: prim<string>('uuid'),
}

export function struct<F extends Fields>(fields: F): StructType<InferFields<F>> {
  return { kind: 'struct', fields }
}

export function arrayOf<I>(item: Type<I>): ArrayType<I[]> {
  return { kind: 'array', item }
}

export function field<X, O extends FieldOptions = {}>(type: Type<X>, versions: string, opts?: O): Field<Nullable<O, X>> {
  const tagged = parseVersions(opts?.tagged ?? 'none')
  if (tagged.min <= tagged.max && opts?.tag === undefined) throw new Error('tagged field needs a tag')
  return {
    type,
    versions: parseVersions(versions),
    nullable: parseVersions(opts?.nullable ?? 'none'),
    tagged,
    tag: opts?.tag ?? -1,
    default: opts?.default,
  }
}

/** Shorthands, so declarations read like a field list. */
export const f = {
  bool: <O extends FieldOptions = {}>(v: string, o?: O) => field(T.bool, v, o),
  int8: <O extends FieldOptions = {}>(v: string, o?: O) => field(T.int8, v, o),
  int16: <O extends FieldOptions = {}>(v: string, o?: O) => field(T.int16, v, o),
  uint16: <O extends FieldOptions = {}>(v: string, o?: O) => field(T.uint16, v, o),
  int32: <O extends FieldOptions = {}>(v: string, o?: O) => field(T.int32, v, o),
  uint32: <O extends FieldOptions = {}>(v: string, o?: O) => field(T.uint32, v, o),
  int64: <O extends FieldOptions = {}>(v: string, o?: O) => field(T.int64, v, o),
  float64: <O extends FieldOptions = {}>(v: string, o?: O) => field(T.float64, v, o),
  string: <O extends FieldOptions = {}>(v: string, o?: O) => field(T.string, v, o),
  bytes: <O extends FieldOptions = {}>(v: string, o?: O) => field(T.bytes, v, o),
  records: <O extends FieldOptions = {}>(v: string, o?: O) => field(T.records, v, o),
  uuid: <O extends FieldOptions = {}>(v: string, o?: O) => field(T.uuid, v, o),
  /** An array of structs declared inline. */
  array: <F extends Fields, O extends FieldOptions = {}>(v: string, fields: F, o?: O) => field(arrayOf(struct(fields)), v, o),
  /** An array of a primitive (or previously declared struct) type. */
  arrayOf: <I, O extends FieldOptions = {}>(v: string, item: Type<I>, o?: O) => field(arrayOf(item), v, o),
  struct: <F extends Fields, O extends FieldOptions = {}>(v: string, fields: F, o?: O) => field(struct(fields), v, o),
}

// ---------------------------------------------------------------------------------------------
// Messages.

export interface MessageDecl<F extends Fields> {
  apiKey: number
  name: string
  /** Versions this declaration covers, e.g. '0-12'. */
  versions: string
  /** Versions that use the flexible (compact + tagged fields) encoding, e.g. '9+'. */
  flexible: string
  fields: F
}

export interface Codec<V> {
  encode(w: Writer, value: Encodable<V>): void
  decode(r: Reader): V
}

export interface Message<V> {
  readonly apiKey: number
  readonly name: string
  readonly versions: VersionRange
  readonly flexible: VersionRange
  readonly fields: Fields
  isFlexible(version: number): boolean
  /** The codec for one version, built on first use and cached. */
  codec(version: number): Codec<V>
  encode(version: number, value: Encodable<V>): Buffer
  decode(version: number, buf: Buffer): V
  readonly _t?: V
}

/** What an encoder accepts: any field may be left out and then takes its default. */
export type Encodable<V> = V extends Buffer
  ? V
  : V extends (infer I)[]
    ? Encodable<I>[]
    : V extends object
      ? { [K in keyof V]?: Encodable<V[K]> }
      : V

export function message<F extends Fields>(decl: MessageDecl<F>): Message<InferFields<F>> {
  const versions = parseVersions(decl.versions)
  const flexible = parseVersions(decl.flexible)
  const cache = new Map<number, Codec<InferFields<F>>>()
  const type = struct(decl.fields)
  const msg: Message<InferFields<F>> = {
    apiKey: decl.apiKey,
    name: decl.name,
    versions,
    flexible,
    fields: decl.fields,
    isFlexible: (v) => inRange(flexible, v),
    codec(version) {
      let c = cache.get(version)
      if (!c) {
        if (!inRange(versions, version)) throw new Error(`${decl.name} has no version ${version}`)
        c = buildCodec(type, version, inRange(flexible, version)) as Codec<InferFields<F>>
        cache.set(version, c)
      }
      return c
    },
    encode(version, value) {
      const w = new Writer()
      msg.codec(version).encode(w, value)
      return w.toBuffer()
    },
    decode(version, buf) {
      // Bytes left after the body are ignored, as Kafka ignores them (librdkafka 2.12+ leaves three
      // after every all-topics Metadata v12 request).
      return msg.codec(version).decode(new Reader(buf))
    },
  }
  return msg
}

// ---------------------------------------------------------------------------------------------
// The codec builder.

type Enc = (w: Writer, v: any) => void
type Dec = (r: Reader) => any

export class EncodeError extends Error {
  constructor(message: string) {
    super(message)
    this.name = 'EncodeError'
  }
}

function utf8Length(s: string): number {
  // Fast path for ASCII, which nearly every topic name, client id and group id is.
  for (let i = 0; i < s.length; i++) if (s.charCodeAt(i) > 0x7f) return Buffer.byteLength(s, 'utf8')
  return s.length
}

/** The value a field takes when a version lacks it or a tagged field was not sent. */
export function defaultValue(field: Field<any>, version: number): unknown {
  // As Kafka's generated code: a nullable field is null by default only when declared so.
  if (field.default !== undefined) return field.default
  return zeroValue(field.type, version)
}

function zeroValue(type: Type<any>, version: number): unknown {
  switch (type.kind) {
    case 'array':
      return []
    case 'struct': {
      const o: Record<string, unknown> = {}
      for (const [name, fld] of Object.entries(type.fields)) o[name] = defaultValue(fld, version)
      return o
    }
    case 'primitive':
      switch (type.name) {
        case 'bool':
          return false
        case 'string':
          return ''
        case 'bytes':
          return Buffer.alloc(0)
        case 'records':
          return null
        case 'uuid':
          return ZERO_UUID
        default:
          return 0
      }
  }
}

function primitiveCodec(name: PrimitiveName, nullable: boolean, flexible: boolean): [Enc, Dec] {
  switch (name) {
    case 'bool':
      return [(w, v) => w.bool(v === true), (r) => r.bool()]
    case 'int8':
      return [(w, v) => w.int8(v ?? 0), (r) => r.int8()]
    case 'int16':
      return [(w, v) => w.int16(v ?? 0), (r) => r.int16()]
    case 'uint16':
      return [(w, v) => w.uint16(v ?? 0), (r) => r.uint16()]
    case 'int32':
      return [(w, v) => w.int32(v ?? 0), (r) => r.int32()]
    case 'uint32':
      return [(w, v) => w.uint32(v ?? 0), (r) => r.uint32()]
    case 'int64':
      // Kafka accepts any int64; values past 2^53 (Long.MAX_VALUE as "no limit", say) are clamped
      // to the safe range instead of refused, which keeps their meaning (see Reader.int64Clamped).
      return [(w, v) => w.int64(v ?? 0), (r) => r.int64Clamped()]
    case 'float64':
      return [(w, v) => w.float64(v ?? 0), (r) => r.float64()]
    case 'uuid':
      return [(w, v) => w.bytes(uuidToBytes(v ?? ZERO_UUID)), (r) => uuidFromBytes(r.slice(16))]
    case 'string':
      return stringCodec(nullable, flexible)
    case 'bytes':
    case 'records':
      return bytesCodec(nullable || name === 'records', flexible, name === 'records')
  }
}

function stringCodec(nullable: boolean, flexible: boolean): [Enc, Dec] {
  const enc: Enc = (w, v) => {
    if (v === null || v === undefined) {
      if (!nullable) throw new EncodeError('null in a non-nullable string')
      if (flexible) w.uvarint(0)
      else w.int16(-1)
      return
    }
    const n = utf8Length(v)
    if (flexible) w.uvarint(n + 1)
    else {
      if (n > 0x7fff) throw new EncodeError('string longer than 32767 bytes')
      w.int16(n)
    }
    w.utf8(v, n)
  }
  const dec: Dec = (r) => {
    const n = flexible ? r.compactLength() : r.int16()
    if (n < 0) {
      // Kafka's generated readers: any negative length is null; refused where null is not allowed.
      if (!nullable) throw new DecodeError('null in a non-nullable string')
      return null
    }
    // Kafka refuses a string longer than an int16 length could say, in compact form too.
    if (n > 0x7fff) throw new DecodeError(`string of ${n} bytes exceeds 32767`)
    return r.utf8(n)
  }
  return [enc, dec]
}

function bytesCodec(nullable: boolean, flexible: boolean, isRecords: boolean): [Enc, Dec] {
  const enc: Enc = (w, v) => {
    if (v === null || v === undefined) {
      if (!nullable) throw new EncodeError('null in non-nullable bytes')
      if (flexible) w.uvarint(0)
      else w.int32(-1)
      return
    }
    if (flexible) w.uvarint(v.length + 1)
    else w.int32(v.length)
    if (isRecords) w.splice(v)
    else w.bytes(v)
  }
  const dec: Dec = (r) => {
    const n = flexible ? r.compactLength() : r.int32()
    if (n < 0) {
      if (!nullable) throw new DecodeError('null in non-nullable bytes')
      return null
    }
    return r.slice(n)
  }
  return [enc, dec]
}

function arrayCodec(item: [Enc, Dec], nullable: boolean, flexible: boolean, itemMinBytes: number): [Enc, Dec] {
  const [encItem, decItem] = item
  const enc: Enc = (w, v) => {
    if (v === null || v === undefined) {
      if (!nullable) throw new EncodeError('null in a non-nullable array')
      if (flexible) w.uvarint(0)
      else w.int32(-1)
      return
    }
    if (flexible) w.uvarint(v.length + 1)
    else w.int32(v.length)
    for (let i = 0; i < v.length; i++) encItem(w, v[i])
  }
  const dec: Dec = (r) => {
    const n = flexible ? r.compactLength() : r.int32()
    if (n < 0) {
      if (!nullable) throw new DecodeError('null in a non-nullable array')
      return null
    }
    // Every element takes at least itemMinBytes: refuse a count the frame cannot hold before
    // allocating anything for it.
    if (n * itemMinBytes > r.remaining) throw new DecodeError(`array of ${n} exceeds the remaining ${r.remaining} bytes`)
    const out = new Array(n)
    for (let i = 0; i < n; i++) out[i] = decItem(r)
    return out
  }
  return [enc, dec]
}

/** The fewest bytes one value of a type can occupy on the wire (for array count checks). */
function minBytes(type: Type<any>, version: number, flexible: boolean): number {
  if (type.kind === 'array') return flexible ? 1 : 4
  if (type.kind === 'struct') {
    let n = flexible ? 1 : 0
    for (const fld of Object.values(type.fields)) {
      if (!inRange(fld.versions, version) || (flexible && inRange(fld.tagged, version))) continue
      n += minBytes(fld.type, version, flexible)
    }
    return n
  }
  switch (type.name) {
    case 'bool':
    case 'int8':
      return 1
    case 'int16':
    case 'uint16':
      return 2
    case 'int32':
    case 'uint32':
      return 4
    case 'int64':
    case 'float64':
      return 8
    case 'uuid':
      return 16
    case 'string':
      return flexible ? 1 : 2
    default:
      return flexible ? 1 : 4
  }
}

function typeCodec(type: Type<any>, nullable: boolean, version: number, flexible: boolean): [Enc, Dec] {
  switch (type.kind) {
    case 'primitive':
      return primitiveCodec(type.name, nullable, flexible)
    case 'array':
      return arrayCodec(
        typeCodec(type.item, false, version, flexible),
        nullable,
        flexible,
        Math.max(1, minBytes(type.item, version, flexible)),
      )
    case 'struct': {
      const c = buildCodec(type, version, flexible)
      if (!nullable) return [c.encode as Enc, c.decode]
      // Nullable structs carry an int8 presence marker (-1 = null).
      return [
        (w, v) => {
          if (v === null || v === undefined) w.int8(-1)
          else {
            w.int8(1)
            c.encode(w, v)
          }
        },
        (r) => (r.int8() < 0 ? null : c.decode(r)),
      ]
    }
  }
}

interface FieldOp {
  name: string
  kind: 'inline' | 'tagged' | 'absent'
  enc: Enc
  dec: Dec
  tag: number
  def: () => unknown
}

function isDefault(v: unknown, def: unknown): boolean {
  if (v === undefined || v === def) return true
  if (Array.isArray(v) && Array.isArray(def)) return v.length === 0 && def.length === 0
  if (Buffer.isBuffer(v) && Buffer.isBuffer(def)) return v.equals(def)
  if (v !== null && def !== null && typeof v === 'object' && typeof def === 'object') {
    // A struct equals its default when every field does.
    const d = def as Record<string, unknown>
    return Object.entries(v as Record<string, unknown>).every(([k, x]) => isDefault(x, d[k]))
  }
  return false
}

export function buildCodec(type: StructType<any>, version: number, flexible: boolean): Codec<any> {
  const ops: FieldOp[] = []
  const byTag = new Map<number, FieldOp>()
  for (const [name, fld] of Object.entries(type.fields)) {
    const present = inRange(fld.versions, version)
    const tagged = present && flexible && inRange(fld.tagged, version)
    const def = () => defaultValue(fld, version)
    if (!present) {
      ops.push({ name, kind: 'absent', enc: () => {}, dec: def, tag: -1, def })
      continue
    }
    const [enc, dec] = typeCodec(fld.type, inRange(fld.nullable, version), version, flexible)
    const op: FieldOp = { name, kind: tagged ? 'tagged' : 'inline', enc, dec, tag: fld.tag, def }
    ops.push(op)
    if (tagged) byTag.set(fld.tag, op)
  }
  const tagged = [...byTag.values()].sort((a, b) => a.tag - b.tag)

  const encode = (w: Writer, v: any) => {
    const value = v ?? {}
    for (let i = 0; i < ops.length; i++) {
      const op = ops[i]!
      if (op.kind !== 'inline') continue
      const x = value[op.name]
      op.enc(w, x === undefined ? op.def() : x)
    }
    if (!flexible) return
    const present = tagged.filter((op) => !isDefault(value[op.name], op.def()))
    w.uvarint(present.length)
    for (const op of present) {
      const sub = new Writer(64)
      op.enc(sub, value[op.name])
      const bytes = sub.toBuffer()
      w.uvarint(op.tag)
      w.uvarint(bytes.length)
      w.bytes(bytes)
    }
  }

  const decode = (r: Reader) => {
    const out: any = {}
    for (let i = 0; i < ops.length; i++) {
      const op = ops[i]!
      out[op.name] = op.kind === 'inline' ? op.dec(r) : op.def()
    }
    if (flexible) {
      // As Kafka's generated readers: tags in any order (a repeated tag: the last one wins), unknown
      // tags skipped (KIP-482), a known field's bytes past what its type needs ignored.
      const n = r.uvarint()
      for (let i = 0; i < n; i++) {
        const tag = r.uvarint()
        const size = r.uvarint()
        r.need(size)
        const op = byTag.get(tag)
        if (!op) {
          r.skip(size)
          continue
        }
        const sub = new Reader(r.buf, r.pos, r.pos + size)
        out[op.name] = op.dec(sub)
        r.pos += size
      }
    }
    return out
  }
  return { encode, decode }
}
