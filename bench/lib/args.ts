import { type ParseArgsOptionsConfig, parseArgs } from 'node:util'

type Numbers<N> = { [K in keyof N]: N[K] extends number ? number : number | undefined }

/**
 * A bench's command line: each key of `numbers` is an option --key=N with
 * that default (undefined: none), refused unless it is a number; `options`
 * are the others, as parseArgs takes them, and come back as `flags`.
 */
export function benchArgs<
  const N extends Record<string, number | undefined>,
  const O extends ParseArgsOptionsConfig = Record<never, never>,
>(numbers: N, options?: O): Numbers<N> & { flags: ReturnType<typeof parseArgs<{ options: O }>>['values'] } {
  const { values } = parseArgs({
    options: {
      ...Object.fromEntries(Object.keys(numbers).map((name) => [name, { type: 'string' } as const])),
      ...options,
    },
  })
  const parsed: Record<string, number | undefined> = {}
  for (const [name, fallback] of Object.entries(numbers)) {
    const given = values[name]
    if (given === undefined) {
      parsed[name] = fallback
      continue
    }
    const value = Number(given)
    if (given === '' || !Number.isFinite(value)) {
      console.error(`--${name}=${String(given)}: not a number`)
      process.exit(2)
    }
    parsed[name] = value
  }
  return {
    ...(parsed as Numbers<N>),
    flags: values as ReturnType<typeof parseArgs<{ options: O }>>['values'],
  }
}
