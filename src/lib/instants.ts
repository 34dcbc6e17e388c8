/**
 * The instants the service stores and compares: UTC years 1..9999, what
 * RFC 3339 can write and well inside PostgreSQL's timestamptz range (which
 * ends in 294276 AD and refuses other years with "timestamp out of range").
 */
export function isStorableInstant(date: Date): boolean {
  const year = date.getUTCFullYear()
  return year >= 1 && year <= 9999
}
