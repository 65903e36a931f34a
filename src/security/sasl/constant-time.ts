// Comparing secrets without telling how much of them matched (CVE-2021-38153): both sides are
// hashed to equal-length digests and compared with crypto.timingSafeEqual, so neither the length
// nor the first differing byte shows in the time taken.
import { createHash, timingSafeEqual } from 'node:crypto'

export function secretsEqual(a: Buffer | string, b: Buffer | string): boolean {
  const da = createHash('sha256').update(a).digest()
  const db = createHash('sha256').update(b).digest()
  return timingSafeEqual(da, db)
}
