// biome-ignore lint/suspicious/noExplicitAny: answers of the service, read field by field
export type Json = any

/** What a command gets: its arguments and options, the service, and the output. */
export interface RunContext {
  args: string[]
  options: Record<string, string | boolean | undefined>
  /** The operator API; an error answer ends the CLI with exit code 1. */
  call(method: string, path: string, body?: unknown): Promise<Json>
  /** The raw answer of a download. */
  download(path: string): Promise<{ bytes: Buffer; contentType: string; filename: string | undefined }>
  /** The answer as JSON with --json, else the human text. */
  print(json: unknown, human: () => string): void
  /** A note for a person (stderr): never part of --json output. */
  note(message: string): void
  baseUrl: string
  usageError(message: string): never
}

export interface OptionSpec {
  type: 'string' | 'boolean'
  /** The value's placeholder in help, for string options. */
  value?: string
  description: string
}

export interface Command {
  /** The words that name it: `keys create`. */
  name: string
  /** Positional arguments; a trailing `?` makes one optional. */
  args: string[]
  summary: string
  example: string
  options?: Record<string, OptionSpec>
  run(ctx: RunContext): Promise<void>
}

export const ALL_SCOPES = ['orders:read', 'orders:write', 'files:write', 'webhooks:manage']

export const more = (page: { next_cursor: string | null }) =>
  page.next_cursor ? `\nMore: add --cursor ${page.next_cursor}` : ''

export function required(ctx: RunContext, name: string): string {
  const value = ctx.options[name]
  if (typeof value !== 'string' || value === '') ctx.usageError(`--${name} is required`)
  return value
}

export function integer(ctx: RunContext, name: string): number | undefined {
  const value = ctx.options[name]
  if (value === undefined) return undefined
  if (typeof value !== 'string' || !/^\d+$/.test(value)) ctx.usageError(`--${name} takes a whole number`)
  return Number(value)
}

export function query(params: Record<string, string | number | undefined>): string {
  const q = new URLSearchParams()
  for (const [k, v] of Object.entries(params)) if (v !== undefined) q.set(k, String(v))
  const s = q.toString()
  return s ? `?${s}` : ''
}

export const str = (ctx: RunContext, name: string) => {
  const v = ctx.options[name]
  return typeof v === 'string' ? v : undefined
}
