/**
 * npm run admin -- <command>: the command line of the operator API (/admin/v1)
 * of a running service. It talks HTTP rather than opening the database, because
 * the embedded database belongs to the one service process that opened it.
 * Every command and its example: docs/cli.md; `--help` after any command.
 *
 * Exit codes: 0 done; 1 the service answered with an error; 2 usage error (the
 * command line); 3 the service cannot be reached; 4 no operator token or a bad
 * configuration.
 */
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { parseArgs } from 'node:util'
import { ConfigError, loadConfig } from '../../src/config.ts'
import { OPERATOR_TOKEN_FILE } from '../../src/operator-token.ts'
import { ALIASES, COMMANDS, type Command, type OptionSpec } from './commands.ts'

export const EXIT = { ok: 0, service: 1, usage: 2, unreachable: 3, config: 4 } as const

class Exit extends Error {
  readonly code: number
  constructor(code: number, message: string) {
    super(message)
    this.code = code
  }
}

const GLOBAL_OPTIONS: Record<string, OptionSpec & { short?: string }> = {
  url: {
    type: 'string',
    value: 'URL',
    description: 'the service (else PUBLIC_BASE_URL, else http://localhost:$PORT)',
  },
  json: { type: 'boolean', description: 'the answer as JSON, for scripts' },
  help: { type: 'boolean', short: 'h', description: 'this help' },
}

const EXIT_CODES_HELP = `Exit codes:
  0  done
  1  the service answered with an error (its code and message are printed)
  2  usage error: unknown command or option, missing argument, or --from missing to move a cancelled order
  3  the service cannot be reached (--url, PORT)
  4  no operator token, or a bad configuration`

function topHelp(): string {
  const width = Math.max(...COMMANDS.map((c) => usageLine(c).length))
  return [
    'Usage: npm run admin -- <command> [arguments] [options]',
    '',
    'The operator API (/admin/v1) of a running service, with the operator token',
    '(OPERATOR_TOKEN, else the file DATA_DIR/operator-token).',
    '',
    'Commands:',
    ...COMMANDS.map((c) => `  ${usageLine(c).padEnd(width)}  ${c.summary}`),
    '',
    'Options of every command:',
    ...optionLines(GLOBAL_OPTIONS),
    '',
    EXIT_CODES_HELP,
    '',
    'npm run admin -- <command> --help says more about one command; docs/cli.md lists them all.',
  ].join('\n')
}

const usageLine = (c: Command) =>
  [c.name, ...c.args.map((a) => (a.endsWith('?') ? `[${a.slice(0, -1)}]` : a))].join(' ')

function optionLines(options: Record<string, OptionSpec & { short?: string }>): string[] {
  const entries = Object.entries(options).map(([name, o]) => [
    `--${name}${o.type === 'string' ? ` ${o.value ?? 'VALUE'}` : ''}${o.short ? `, -${o.short}` : ''}`,
    o.description,
  ])
  const width = Math.max(...entries.map(([f]) => f!.length))
  return entries.map(([f, d]) => `  ${f!.padEnd(width)}  ${d}`)
}

function commandHelp(c: Command): string {
  return [
    `Usage: npm run admin -- ${usageLine(c)}${c.options ? ' [options]' : ''}`,
    '',
    c.summary,
    '',
    ...(c.options ? ['Options:', ...optionLines(c.options), ''] : []),
    'Options of every command:',
    ...optionLines(GLOBAL_OPTIONS),
    '',
    `Example: npm run admin -- ${c.example}`,
  ].join('\n')
}

/** The command named by the first words of the positionals (or an earlier alias). */
function findCommand(words: string[]): { command: Command; rest: string[] } | undefined {
  const aliased = words[0] && ALIASES[words[0]]
  if (aliased) words = [...aliased.split(' '), ...words.slice(1)]
  for (const length of [2, 1]) {
    const name = words.slice(0, length).join(' ')
    const command = COMMANDS.find((c) => c.name === name)
    if (command) return { command, rest: words.slice(length) }
  }
  return undefined
}

function allOptions() {
  const options: Record<string, { type: 'string' | 'boolean'; short?: string }> = {}
  for (const [name, o] of Object.entries(GLOBAL_OPTIONS)) {
    options[name] = { type: o.type, ...(o.short ? { short: o.short } : {}) }
  }
  for (const c of COMMANDS)
    for (const [name, o] of Object.entries(c.options ?? {})) options[name] = { type: o.type }
  return options
}

/** Where a run of the CLI reads its settings and writes its output (the process's, in scripts/admin.ts). */
export interface CliIo {
  env: Record<string, string | undefined>
  out(text: string): void
  err(text: string): void
}

/** Runs one command line; resolves to the exit code. */
export async function runAdmin(argv: string[], io: CliIo): Promise<number> {
  try {
    await main(argv, io)
    return EXIT.ok
  } catch (err) {
    if (!(err instanceof Exit)) throw err
    if (err.message) io.err(err.message)
    return err.code
  }
}

async function main(argv: string[], io: CliIo): Promise<void> {
  const parse = () => parseArgs({ args: argv, options: allOptions(), allowPositionals: true, strict: true })
  let parsed: ReturnType<typeof parse>
  try {
    parsed = parse()
  } catch (err) {
    throw new Exit(EXIT.usage, `${(err as Error).message}\nSee npm run admin -- --help`)
  }
  const { values, positionals } = parsed
  const words = positionals[0] === 'help' ? positionals.slice(1) : positionals
  const found = findCommand(words)
  if (!found) {
    if (words.length === 0) {
      io.out(topHelp())
      if (values.help || positionals[0] === 'help') return
      throw new Exit(EXIT.usage, '')
    }
    const group = COMMANDS.filter((c) => c.name.startsWith(`${words[0]} `))
    const hint = group.length
      ? `${words[0]} takes one of: ${group.map((c) => c.name.split(' ')[1]).join(', ')}`
      : 'See npm run admin -- --help'
    throw new Exit(EXIT.usage, `Unknown command: ${words.join(' ')}. ${hint}`)
  }
  const { command, rest } = found
  if (values.help || positionals[0] === 'help') {
    io.out(commandHelp(command))
    return
  }
  for (const name of Object.keys(values)) {
    if (!(name in GLOBAL_OPTIONS) && !(name in (command.options ?? {}))) {
      throw new Exit(EXIT.usage, `${command.name} takes no --${name}.\n\n${commandHelp(command)}`)
    }
  }
  const requiredCount = command.args.filter((a) => !a.endsWith('?')).length
  if (rest.length < requiredCount || rest.length > command.args.length) {
    throw new Exit(
      EXIT.usage,
      `Usage: npm run admin -- ${usageLine(command)}\nSee npm run admin -- ${command.name} --help`,
    )
  }

  let config: ReturnType<typeof loadConfig>
  try {
    config = loadConfig(io.env)
  } catch (err) {
    if (err instanceof ConfigError) throw new Exit(EXIT.config, `configuration error: ${err.message}`)
    throw err
  }
  const fromUrl = typeof values.url === 'string' && values.url !== ''
  const baseUrl = (fromUrl ? (values.url as string) : config.publicBaseUrl).replace(/\/+$/, '')
  const json = values.json === true

  function operatorToken(): string {
    if (config.operatorToken) return config.operatorToken
    const path = join(config.dataDir, OPERATOR_TOKEN_FILE)
    try {
      return readFileSync(path, 'utf8').trim()
    } catch {
      throw new Exit(
        EXIT.config,
        `No OPERATOR_TOKEN set and no token file at ${path}. Start the service once (npm start), or set OPERATOR_TOKEN.`,
      )
    }
  }

  async function request(method: string, path: string, body?: unknown): Promise<Response> {
    try {
      return await fetch(`${baseUrl}/admin/v1${path}`, {
        method,
        headers: {
          authorization: `Bearer ${operatorToken()}`,
          ...(body === undefined ? {} : { 'content-type': 'application/json' }),
        },
        ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      })
    } catch (err) {
      if (err instanceof Exit) throw err
      const cause = (err as { cause?: { code?: string; message?: string } }).cause
      const source = fromUrl
        ? 'from --url'
        : io.env.PUBLIC_BASE_URL
          ? 'from PUBLIC_BASE_URL'
          : `from PORT=${config.port}`
      throw new Exit(
        EXIT.unreachable,
        `Cannot reach the service at ${baseUrl} (${source}): ${cause?.code ?? cause?.message ?? (err as Error).message}.\n` +
          'Is it running (npm start)? Point the CLI at it with --url URL, or set PORT to the port it listens on.',
      )
    }
  }

  async function failure(method: string, path: string, res: Response): Promise<never> {
    const text = await res.text()
    let envelope:
      | { error?: { code?: string; message?: string; errors?: { field?: string; message?: string }[] } }
      | undefined
    try {
      envelope = JSON.parse(text)
    } catch {
      envelope = undefined
    }
    if (json) {
      io.out(JSON.stringify(envelope ?? { error: { status: res.status, body: text } }, null, 2))
      throw new Exit(EXIT.service, '')
    }
    const error = envelope?.error
    const lines = [
      `Error: ${res.status} ${error?.code ?? ''}${error?.message ? `: ${error.message}` : ''}`.trimEnd(),
    ]
    for (const e of error?.errors ?? []) lines.push(`  ${e.field ? `${e.field}: ` : ''}${e.message ?? ''}`)
    if (!error) lines.push(`  (${method} ${path}: ${text.slice(0, 200)})`)
    throw new Exit(EXIT.service, lines.join('\n'))
  }

  await command.run({
    args: rest,
    options: values as Record<string, string | boolean | undefined>,
    baseUrl,
    async call(method, path, body) {
      const res = await request(method, path, body)
      if (!res.ok) return failure(method, path, res)
      return res.json()
    },
    async download(path) {
      const res = await request('GET', path)
      if (!res.ok) return failure('GET', path, res)
      const disposition = res.headers.get('content-disposition') ?? ''
      return {
        bytes: Buffer.from(await res.arrayBuffer()),
        contentType: res.headers.get('content-type') ?? 'application/octet-stream',
        filename: /filename="([^"]*)"/.exec(disposition)?.[1],
      }
    },
    print(value, human) {
      io.out(json ? JSON.stringify(value, null, 2) : human())
    },
    note(message) {
      io.err(message)
    },
    usageError(message): never {
      throw new Exit(EXIT.usage, `${message}\nSee npm run admin -- ${command.name} --help`)
    },
  })
}
