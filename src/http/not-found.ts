import type { Environment } from '../db/schema.ts'
import { AppError } from './errors.ts'

/** Who asks: an API key (a Principal, which has a keyPrefix) or a dashboard member. */
export interface LookupScope {
  organizationId: string
  environment: Environment
  keyPrefix?: string
}

interface Owned {
  organization_id: string
  environment: Environment
}

/** Whether a row is the caller's; without a scope (the operator), every row is. */
export function inScope(scope: LookupScope | undefined, row: Owned): boolean {
  return !scope || (row.organization_id === scope.organizationId && row.environment === scope.environment)
}

/**
 * 404 not_found for an id the caller's organization and environment do not
 * hold. `found` is the row the id names, whoever it belongs to, if the caller
 * read it anyway: when it is the caller's organization's, in the other
 * environment, the message says so and which key reads it (a test key on a
 * live id is an integration's commonest 404). Another organization's row gets
 * the plain message, which reveals nothing.
 */
export function notFoundHere(
  noun: string,
  scope: LookupScope | undefined,
  found: Owned | undefined,
): AppError {
  if (
    !scope ||
    !found ||
    found.organization_id !== scope.organizationId ||
    found.environment === scope.environment
  ) {
    return new AppError('not_found', { message: `No ${noun} with this id.` })
  }
  const other = found.environment
  const how =
    scope.keyPrefix === undefined
      ? `switch the dashboard to ${other} mode`
      : `use a ${other} key (svc_${other}_…)`
  return new AppError('not_found', {
    message: `No ${noun} with this id in ${scope.environment} mode. This ${noun} exists in ${other} mode; ${how}.`,
  })
}
