import { randomBytes, type ScryptOptions, scrypt, timingSafeEqual } from 'node:crypto'

/**
 * Passwords hashed with scrypt from node:crypto: `scrypt$N$r$p$salt$hash`
 * (base64url), so the cost can be raised later and old hashes still verify.
 * N = 2^15, r = 8, p = 1: 32 MiB and tens of milliseconds per hash.
 */
const COST = { N: 32_768, r: 8, p: 1 }

/** scrypt's cost parameters: `PASSWORD_COST` for every stored password; tests choose a cheaper one. */
export type PasswordCost = typeof COST
export const PASSWORD_COST: PasswordCost = COST
const KEY_LENGTH = 32

function derive(password: string, salt: Buffer, options: ScryptOptions): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    // maxmem: 128 * N * r bytes, with room to spare.
    const withMemory = { ...options, maxmem: 256 * (options.N ?? 0) * (options.r ?? 0) }
    scrypt(password.normalize('NFC'), salt, KEY_LENGTH, withMemory, (err, key) =>
      err ? reject(err) : resolve(key),
    )
  })
}

export async function hashPassword(password: string, cost: PasswordCost = COST): Promise<string> {
  const salt = randomBytes(16)
  const key = await derive(password, salt, cost)
  return ['scrypt', cost.N, cost.r, cost.p, salt.toString('base64url'), key.toString('base64url')].join('$')
}

/**
 * A hash of no one's password (a random one, thrown away) with today's cost:
 * verifying against it costs what a real check does. A constant, so that no
 * process spends a hash on it at every start.
 */
const DECOY = [
  'scrypt',
  COST.N,
  COST.r,
  COST.p,
  'Co9bUjdSAi6WaAC38_EytA',
  '6V_a4ctuBnaSZnSJtlmIElUv10HFWh5ee_3TZJ6qnac',
].join('$')

/** Decoys by cost: the constant one for PASSWORD_COST, one made on first use for another (tests). */
const decoys = new Map<string, Promise<string>>([[`${COST.N}$${COST.r}$${COST.p}`, Promise.resolve(DECOY)]])

function decoyFor(cost: PasswordCost): Promise<string> {
  const key = `${cost.N}$${cost.r}$${cost.p}`
  let decoy = decoys.get(key)
  if (!decoy) {
    decoy = hashPassword(randomBytes(16).toString('base64url'), cost)
    decoys.set(key, decoy)
  }
  return decoy
}

/**
 * Whether the password matches the stored hash, compared in constant time.
 * Without a hash (unknown email) a decoy at the cost new passwords get is
 * checked, so both cases take as long.
 */
export async function verifyPassword(
  password: string,
  stored: string | undefined,
  cost: PasswordCost = COST,
): Promise<boolean> {
  const [scheme, n, r, p, salt, hash] = (stored ?? (await decoyFor(cost))).split('$')
  if (scheme !== 'scrypt' || !salt || !hash) return false
  const expected = Buffer.from(hash, 'base64url')
  const key = await derive(password, Buffer.from(salt, 'base64url'), {
    N: Number(n),
    r: Number(r),
    p: Number(p),
  })
  return timingSafeEqual(key, expected) && stored !== undefined
}
