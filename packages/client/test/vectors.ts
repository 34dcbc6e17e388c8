import { readFileSync } from 'node:fs'

/** The published X-Service-Signature test vectors (test-vectors/webhook-signatures.json). */
export interface SignatureVector {
  name: string
  body: string
  secret: string
  /** The secrets the header was signed with, in order (new, then previous), where there are two. */
  signing_secrets?: string[]
  timestamp: number
  header: string
  now: number
  expected: { valid: true; event_id: string; event_type: string } | { valid: false; reason: string }
}

const file = new URL('../test-vectors/webhook-signatures.json', import.meta.url)
export const SIGNATURE_VECTORS = JSON.parse(readFileSync(file, 'utf8')) as {
  tolerance: number
  vectors: SignatureVector[]
}
