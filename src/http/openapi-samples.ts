import { EXAMPLE_IDS, ORDER_REQUEST } from './openapi-examples.ts'

/**
 * The `x-codeSamples` of the main /v1 operations, which API references
 * (Redoc, Scalar) show beside each operation: a curl command and the same call
 * with the TypeScript client (packages/client), on the ids of the examples'
 * story. test/docs/docs.openapi.test.ts type-checks every TypeScript sample
 * against the client and checks that every curl sample calls its operation.
 */
export interface CodeSample {
  lang: 'Shell' | 'TypeScript'
  label: string
  source: string
}

const KEY = '$ORDER_INTAKE_API_KEY'
const AUTH = `-H "Authorization: Bearer ${KEY}"`
const JSON_BODY = '-H "Content-Type: application/json"'

/** A curl command: the URL, then one option per line. */
const curl = (url: string, ...options: string[]) => [`curl "${url}"`, AUTH, ...options].join(' \\\n  ')

/** The client, made once per sample so that each one can be copied alone. */
const client = (base: string, imports: string[], body: string) =>
  [
    `import { ${['OrderIntakeClient', ...imports].join(', ')} } from '@order-intake/client'`,
    '',
    `const client = new OrderIntakeClient({ baseUrl: '${base}', apiKey: process.env.ORDER_INTAKE_API_KEY! })`,
    '',
    body,
  ].join('\n')

const samples = (shell: string, typescript: string): CodeSample[] => [
  { lang: 'Shell', label: 'curl', source: shell },
  { lang: 'TypeScript', label: 'TypeScript client', source: typescript },
]

/** A JSON value as a curl sample quotes it, indented under the command. */
const json = (value: unknown) => JSON.stringify(value, null, 2).replaceAll('\n', '\n  ')

/** The same value as a TypeScript literal: keys unquoted, strings in single quotes (none holds a quote). */
const literal = (value: unknown) =>
  JSON.stringify(value, null, 2)
    .replace(/"(\w+)":/g, '$1:')
    .replaceAll('"', "'")

export function codeSamples(publicBaseUrl: string): Record<string, CodeSample[]> {
  const v1 = `${publicBaseUrl}/v1`
  const ts = (imports: string[], body: string) => client(publicBaseUrl, imports, body)
  const answer = (operation: string, status: number) =>
    `operations['${operation}']['responses'][${status}]['content']['application/json']`
  const endpointPath = `/v1/webhook-endpoints/${EXAMPLE_IDS.endpoint}`
  const deliveryPath = `/v1/webhook-deliveries/${EXAMPLE_IDS.delivery}`
  return {
    ping: samples(
      curl(`${v1}/ping`),
      ts([], 'const { organization, environment, scopes } = await client.ping()'),
    ),
    createOrder: samples(
      curl(`${v1}/orders`, JSON_BODY, `-d '${json(ORDER_REQUEST)}'`),
      ts(
        [],
        `// 201: created; 200: an identical order was already there. Both are success.
const { order, warnings, created } = await client.orders.create(${literal(ORDER_REQUEST)})`,
      ),
    ),
    listOrders: samples(
      curl(`${v1}/orders?updated_since=2026-11-25T09:00:00.000Z&limit=100`),
      ts(
        [],
        `// One page; follow next_cursor until it is null (client.orders.all does).
const page = await client.orders.list({ updated_since: '2026-11-25T09:00:00.000Z', limit: 100 })
for (const order of page.data) console.log(order.external_order_id, order.status)`,
      ),
    ),
    getOrder: samples(
      curl(`${v1}/orders/${EXAMPLE_IDS.order}`),
      ts([], `const order = await client.orders.get('${EXAMPLE_IDS.order}')`),
    ),
    createUpload: samples(
      curl(`${v1}/uploads`, JSON_BODY, `-d '{"filename": "mia-birthday.png"}'`),
      ts(
        [],
        `// A slot: PUT the file's bytes to slot.upload_url (client.uploads.upload does both steps).
const slot = await client.uploads.create('mia-birthday.png')`,
      ),
    ),
    putUploadContent: samples(
      [
        '# upload_url exactly as POST /v1/uploads returned it: never built from its parts.',
        `UPLOAD_URL=$(${curl(`${v1}/uploads`, JSON_BODY, `-d '{"filename": "mia-birthday.png"}'`)} | jq -r .data.upload_url)`,
        '# The raw bytes, no API key, not JSON.',
        'curl --fail --upload-file mia-birthday.png "$UPLOAD_URL"',
      ].join('\n'),
      [
        "import { readFile } from 'node:fs/promises'",
        ts(
          [],
          `const slot = await client.uploads.create('mia-birthday.png')
await client.uploads.put(slot, await readFile('mia-birthday.png'), { contentType: 'image/png' })
// Reference slot.upload_id in an order item's files.`,
        ),
      ].join('\n'),
    ),
    createWebhookEndpoint: samples(
      curl(
        `${v1}/webhook-endpoints`,
        JSON_BODY,
        `-d '{"url": "https://shop.example.com/hooks/production", "enabled_events": ["order.production_completed", "order.production_failed"]}'`,
      ),
      ts(
        ['type components', 'type operations'],
        `const endpoint: components['schemas']['WebhookEndpointRequest'] = {
  url: 'https://shop.example.com/hooks/production',
  enabled_events: ['order.production_completed', 'order.production_failed'],
}
const { body } = await client.request<${answer('createWebhookEndpoint', 201)}>('POST', '/v1/webhook-endpoints', {
  body: endpoint,
})
// Shown only here: keep it to verify deliveries.
const secret = body.data.secret`,
      ),
    ),
    listWebhookEndpoints: samples(
      curl(`${v1}/webhook-endpoints`),
      ts(
        ['type operations'],
        `const { body } = await client.request<${answer('listWebhookEndpoints', 200)}>('GET', '/v1/webhook-endpoints', {
  retry: 'safe',
})
for (const endpoint of body.data) console.log(endpoint.url, endpoint.is_active, endpoint.enabled_events)`,
      ),
    ),
    updateWebhookEndpoint: samples(
      curl(`${publicBaseUrl}${endpointPath}`, '-X PATCH', JSON_BODY, `-d '{"enabled_events": ["*"]}'`),
      ts(
        ['type components', 'type operations'],
        `const change: components['schemas']['WebhookEndpointUpdate'] = { enabled_events: ['*'] }
const { body } = await client.request<${answer('updateWebhookEndpoint', 200)}>('PATCH', '${endpointPath}', {
  body: change,
})`,
      ),
    ),
    deleteWebhookEndpoint: samples(
      curl(`${publicBaseUrl}${endpointPath}`, '-X DELETE'),
      ts(
        ['type operations'],
        `const { body } = await client.request<${answer('deleteWebhookEndpoint', 200)}>('DELETE', '${endpointPath}')`,
      ),
    ),
    testWebhookEndpoint: samples(
      curl(`${publicBaseUrl}${endpointPath}/test`, '-X POST'),
      ts(
        ['type operations'],
        `// Queues a ping to this endpoint.
const { body } = await client.request<${answer('testWebhookEndpoint', 202)}>('POST', '${endpointPath}/test')`,
      ),
    ),
    listWebhookDeliveries: samples(
      curl(`${v1}/webhook-deliveries?endpoint_id=${EXAMPLE_IDS.endpoint}&status=failed&limit=25`),
      ts(
        ['type operations'],
        `const { body } = await client.request<${answer('listWebhookDeliveries', 200)}>('GET', '/v1/webhook-deliveries', {
  query: { endpoint_id: '${EXAMPLE_IDS.endpoint}', status: 'failed', limit: 25 },
  retry: 'safe',
})
for (const delivery of body.data) console.log(delivery.event_type, delivery.response_status, delivery.error_code)
// body.next_cursor: pass it as query.cursor for the next page; null on the last one.`,
      ),
    ),
    getWebhookDelivery: samples(
      curl(`${publicBaseUrl}${deliveryPath}`),
      ts(
        ['type operations'],
        `const { body } = await client.request<${answer('getWebhookDelivery', 200)}>('GET', '${deliveryPath}', {
  retry: 'safe',
})`,
      ),
    ),
    redeliverWebhookDelivery: samples(
      curl(`${publicBaseUrl}${deliveryPath}/redeliver`, '-X POST'),
      ts(
        ['type operations'],
        `// A new log entry, sending the same event (same id) again.
const { body } = await client.request<${answer('redeliverWebhookDelivery', 202)}>('POST', '${deliveryPath}/redeliver')`,
      ),
    ),
  }
}
