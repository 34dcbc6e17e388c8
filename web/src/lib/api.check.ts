/**
 * Type-level checks of the dashboard's API client, never run nor bundled
 * (nothing imports this file): `npm run typecheck` compiles it, and each
 * `@ts-expect-error` must meet an error. A change that let a wrong path or
 * body through, or turned an answer into `any`, fails the check.
 */
import type { Answer, CreateApiKeyBody, client, Input } from './api.ts'

declare const api: typeof client
declare const input: CreateApiKeyBody

type IsAnyOrNever<T> = 0 extends 1 & T ? true : [T] extends [never] ? true : false
const documented: IsAnyOrNever<Answer<'/api-keys', 'post'> | Input<'/api-keys', 'post'>>[] = [false]

export async function checks() {
  // What the document says, accepted; the answer typed from it.
  const created = await api.POST('/api-keys', { body: input })
  const prefix: string | undefined = created.data?.data.api_key.key_prefix
  // @ts-expect-error the answer is typed, not any: it has no such field
  created.data?.data.receipt
  await api.POST('/api-keys', { body: { environment: 'test', scopes: ['orders:read'] } })

  // @ts-expect-error a wrong body: the environment must be test or live
  await api.POST('/api-keys', { body: { environment: 'staging', scopes: ['orders:read'] } })
  // @ts-expect-error a wrong body: scopes is required
  await api.POST('/api-keys', { body: { environment: 'test' } })
  // @ts-expect-error a wrong body: no field `label`
  const wrong: Input<'/api-keys', 'post'> = { ...input, label: 'x' }
  // @ts-expect-error no such path
  await api.GET('/api-key', {})
  // @ts-expect-error /session takes no DELETE, so it has no answer to name
  type NoAnswer = Answer<'/session', 'delete'>

  return { documented, prefix, wrong, noAnswer: undefined as unknown as NoAnswer }
}
