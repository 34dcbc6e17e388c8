/** Injectable time source, so expiry and retention are testable without waiting. */
export interface Clock {
  now(): Date
}

export const systemClock: Clock = { now: () => new Date() }
