/** The numbers the catalog's texts state. */
export interface CatalogValues {
  rateLimitPerMinute: number
  rateLimitWindowS: number
  orderBodyBytes: number
  defaultBodyBytes: number
  headerBytes: number
  headersTimeoutMs: number
  bodyTimeoutMs: number
  uploadGraceMs: number
  uploadMinBytesPerSecond: number
  maxUploadBytes: number
  uploadUrlTtlS: number
  maxActiveEndpoints: number
  maxListenStreams: number
  listenLeaseS: number
  maxParamLength: number
  signInPerAccountAndAddress: number
  signInPerAddress: number
  invitationTtlDays: number
  passwordResetTtlMinutes: number
  svg: {
    elements: number
    nodes: number
    depth: number
    attributesPerElement: number
    entityExpansion: number
    timeLimitMs: number
    memoryLimitMb: number
  }
}

/** 10 MB, 64 KB: a size in the largest binary unit that divides it. */
export function binarySize(bytes: number, units = ['bytes', 'KB', 'MB', 'GB']): string {
  let n = bytes
  let unit = 0
  while (unit < units.length - 1 && n >= 1024 && n % 1024 === 0) {
    n /= 1024
    unit += 1
  }
  return `${n} ${units[unit]}`
}
