// ssl.principal.mapping.rules (KIP-371), and the subject DN of a client certificate in the form
// those rules see: RFC 2253, the last RDN of the certificate first (what Java's
// X500Principal.getName() returns, so a rule written for a Kafka broker matches here too).
//
// Rules, as Kafka's SslPrincipalMapper reads them: a comma-separated list of DEFAULT (the DN as
// is) and RULE:pattern/replacement/[LU] entries (a "/" inside pattern or replacement is escaped as
// "\/"; L or U turns the result to lower or upper case). They are tried in order; a rule applies
// when its pattern matches the whole DN, and the result is the DN with every match of the pattern
// replaced (Java's String.replaceAll). A DN no rule applies to is an authentication failure.
// Patterns are Java regular expressions; the common subset (groups, classes, quantifiers, anchors)
// means the same in JavaScript. Replacements use Java's syntax: $n is a group (a reference past the
// last group is literal text, as Kafka escapes it), \x is x.

/** A DN that no rule applies to (Kafka's NoMatchingRule). */
export class NoMatchingRule extends Error {
  override name = 'NoMatchingRule'
}

interface Rule {
  /** undefined: DEFAULT. */
  pattern?: RegExp
  /** The whole-DN test of the pattern. */
  whole?: RegExp
  replacement?: string
  caseChange?: 'L' | 'U'
  text: string
}

// One rule: DEFAULT, or RULE:pattern/replacement/ with an optional L or U (Kafka's RULE_PATTERN).
const RULE = String.raw`(DEFAULT)|RULE:((?:\\.|[^\\/])*)/((?:\\.|[^\\/])*)/([LU]?).*?|(.*?)`
const SPLITTER = new RegExp(String.raw`\s*(` + RULE + String.raw`)\s*(?:,\s*|$)`, 'gy')
const PARSER = new RegExp(`^(?:${RULE})`)

export class PrincipalMapper {
  private readonly rules: Rule[]

  /** Parses ssl.principal.mapping.rules; throws an Error saying which rule is invalid. */
  constructor(rulesText: string) {
    this.rules = parseRules(rulesText.trim() === '' ? 'DEFAULT' : rulesText.trim())
  }

  /** The principal name of a DN; throws NoMatchingRule when no rule applies. */
  name(dn: string): string {
    for (const rule of this.rules) {
      const mapped = apply(rule, dn)
      if (mapped !== undefined) return mapped
    }
    throw new NoMatchingRule(`No rules apply to ${dn}, rules [${this.rules.map((r) => r.text).join(', ')}]`)
  }
}

function parseRules(text: string): Rule[] {
  const rules: Rule[] = []
  SPLITTER.lastIndex = 0
  while (SPLITTER.lastIndex < text.length) {
    const start = SPLITTER.lastIndex
    const m = SPLITTER.exec(text)
    if (!m || SPLITTER.lastIndex === start) throw new Error(`Invalid rule: ${text.slice(start)}`)
    const rule = m[1]!
    if (rule === '') continue
    const p = PARSER.exec(rule)
    if (!p || p[0].length !== rule.length) {
      throw new Error(`Invalid rule: \`${rule}\`, unmatched substring: \`${rule.slice(p?.[0].length ?? 0)}\``)
    }
    if (p[1] !== undefined) rules.push({ text: 'DEFAULT' })
    else if (p[2] !== undefined) {
      let pattern: RegExp
      try {
        pattern = new RegExp(p[2], 'g')
      } catch (err) {
        throw new Error(`Invalid rule: \`${rule}\`: ${(err as Error).message}`, { cause: err })
      }
      rules.push({
        pattern,
        whole: new RegExp(`^(?:${p[2]})$`),
        replacement: p[3]!,
        ...(p[4] ? { caseChange: p[4] as 'L' | 'U' } : {}),
        text: rule,
      })
    } else throw new Error(`Invalid rule: ${rule}`)
  }
  return rules
}

function apply(rule: Rule, dn: string): string | undefined {
  if (!rule.pattern) return dn
  const whole = rule.whole!.exec(dn)
  if (!whole) return undefined
  const groups = whole.length - 1
  rule.pattern.lastIndex = 0
  const out = dn.replace(rule.pattern, (...args: unknown[]) => javaReplacement(rule.replacement!, args.slice(0, groups + 1) as string[]))
  if (rule.caseChange === 'L') return out.toLowerCase()
  if (rule.caseChange === 'U') return out.toUpperCase()
  return out
}

/** Java's Matcher replacement syntax: $n the longest group number that exists, \x a literal x. */
function javaReplacement(replacement: string, match: string[]): string {
  let out = ''
  for (let i = 0; i < replacement.length; i++) {
    const c = replacement[i]!
    if (c === '\\' && i + 1 < replacement.length) {
      out += replacement[++i]
    } else if (c === '$' && /[0-9]/.test(replacement[i + 1] ?? '')) {
      let n = Number(replacement[++i])
      if (n >= match.length) {
        out += `$${replacement[i]}` // a reference past the last group stays literal (Kafka escapes it)
        continue
      }
      while (/[0-9]/.test(replacement[i + 1] ?? '') && n * 10 + Number(replacement[i + 1]) < match.length) {
        n = n * 10 + Number(replacement[++i])
      }
      out += match[n] ?? ''
    } else out += c
  }
  return out
}

// Attribute types Java's X500Principal writes by keyword in RFC 2253 form; others are written as
// their OID with the value's DER in hex (#...), which we can rebuild for the string types a
// certificate subject commonly carries.
const RFC2253_KEYWORDS = new Set(['CN', 'C', 'L', 'ST', 'O', 'OU', 'STREET', 'DC', 'UID'])
const HEX_ENCODED: Record<string, { oid: string; tag: number }> = {
  emailAddress: { oid: '1.2.840.113549.1.9.1', tag: 0x16 }, // IA5String
  serialNumber: { oid: '2.5.4.5', tag: 0x13 }, // PrintableString
}

/**
 * The RFC 2253 form of a certificate subject as Node's X509Certificate.subject gives it: one RDN
 * per line in the certificate's order (first RDN first), values already escaped as RFC 2253 §2.4
 * says, the values of a multi-valued RDN joined by " + ".
 */
export function rfc2253(subject: string): string {
  return subject
    .split('\n')
    .filter((line) => line !== '')
    .reverse()
    .map((line) =>
      line
        .split(' + ')
        .map((ava) => {
          const eq = ava.indexOf('=')
          const type = ava.slice(0, eq)
          const value = ava.slice(eq + 1)
          if (RFC2253_KEYWORDS.has(type.toUpperCase())) return `${type.toUpperCase()}=${value}`
          const hex = HEX_ENCODED[type]
          const bytes = Buffer.from(value.replace(/\\(.)/g, '$1'), 'utf8')
          if (hex && bytes.length < 128)
            return `${hex.oid}=#${Buffer.concat([Buffer.from([hex.tag, bytes.length]), bytes]).toString('hex')}`
          return `${type}=${value}`
        })
        .join('+'),
    )
    .join(',')
}
