#!/usr/bin/env node
import { parseArgs } from 'node:util'
import type { RequestBodyJSON } from 'openapi-typescript-helpers'
import { ListenRefused, listen } from './cli/listen.ts'
import { OrderIntakeConnectionError, OrderIntakeError } from './errors.ts'
import type { operations } from './generated/openapi.ts'
import { Transport } from './transport.ts'

const USAGE = `Usage:
  order-intake listen --forward-to <url> [--events type,type]
  order-intake trigger <event type>

Options (both commands):
  --api-key <key>    default: $ORDER_INTAKE_API_KEY (scope webhooks:manage)
  --base-url <url>   default: $ORDER_INTAKE_BASE_URL, else http://localhost:3000

listen   receives the events of the key's organization and environment as they
         are written and POSTs each, signed with a secret printed at start, to
         the local URL. A test key sees only events made with trigger.
trigger  sends a sample event of that type to the open listen sessions of a
         test key's organization (never to registered endpoints).`

async function main(argv: string[]): Promise<number> {
  const { values, positionals } = parseArgs({
    args: argv,
    allowPositionals: true,
    options: {
      'api-key': { type: 'string' },
      'base-url': { type: 'string' },
      'forward-to': { type: 'string' },
      events: { type: 'string' },
      help: { type: 'boolean', short: 'h' },
    },
  })
  const [command, ...rest] = positionals
  if (values.help || !command) {
    console.log(USAGE)
    return command || values.help ? 0 : 2
  }
  const apiKey = values['api-key'] ?? process.env.ORDER_INTAKE_API_KEY
  const givenBaseUrl = values['base-url'] ?? process.env.ORDER_INTAKE_BASE_URL
  const baseUrl = givenBaseUrl ?? 'http://localhost:3000'
  if (!apiKey) {
    console.error('An API key is needed: --api-key or ORDER_INTAKE_API_KEY.')
    return 2
  }
  if (command === 'listen') {
    const forwardTo = values['forward-to']
    if (!forwardTo || !URL.canParse(forwardTo)) {
      console.error('listen needs --forward-to <url>, e.g. http://localhost:4242/webhooks')
      return 2
    }
    const stop = new AbortController()
    process.once('SIGINT', () => stop.abort())
    process.once('SIGTERM', () => stop.abort())
    const events = values.events
      ?.split(',')
      .map((s) => s.trim())
      .filter(Boolean)
    try {
      await listen({
        baseUrl,
        baseUrlIsDefault: givenBaseUrl === undefined,
        apiKey,
        forwardTo,
        ...(events ? { events } : {}),
        signal: stop.signal,
      })
      return 0
    } catch (err) {
      if (err instanceof ListenRefused) {
        console.error(`The service refused the session: ${err.message}`)
        return 1
      }
      throw err
    }
  }
  if (command === 'trigger') {
    const type = rest[0]
    if (!type) {
      console.error('trigger needs an event type, e.g. order.received')
      return 2
    }
    const transport = new Transport({ baseUrl, apiKey })
    // Any word is sent: the service refuses an unknown type with the list of valid ones.
    const body = { type } as RequestBodyJSON<operations['triggerWebhookEvent']>
    const answer = await transport.call('POST', '/v1/webhook-events/trigger', { body, retry: 'rate-limit' })
    const { sessions } = answer.body.data
    console.log(
      `Triggered ${answer.body.data.type}: sent to ${sessions} listen session${sessions === 1 ? '' : 's'}.`,
    )
    return 0
  }
  console.error(`Unknown command ${command}.\n\n${USAGE}`)
  return 2
}

main(process.argv.slice(2)).then(
  (code) => {
    process.exitCode = code
  },
  (err: unknown) => {
    if (err instanceof OrderIntakeError) {
      console.error(`${err.status} ${err.code}: ${err.message}${err.field ? ` (${err.field})` : ''}`)
      // Each problem the service named: for trigger's unknown type, the list of valid types.
      for (const entry of err.errors) console.error(`  ${entry.message}`)
    } else if (err instanceof OrderIntakeConnectionError || err instanceof TypeError) {
      console.error(err.message)
    } else {
      console.error(err)
    }
    process.exitCode = 1
  },
)
