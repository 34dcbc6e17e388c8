import type { OrderRow } from '../../../db/schema.ts'
import type { ValidationEntry } from '../../../http/errors.ts'
import { bodyErrors } from '../../../http/validation.ts'
import type { ItemWithJob } from '../orders.repo.ts'
import { OrderRequest } from '../orders.schemas.ts'
import type { OrderChangeRequest } from './changes.schemas.ts'

/**
 * What a change makes of an accepted order, decided before anything is
 * written: each named item's new state, the fields that changed, and the
 * whole order as POST /v1/orders would receive it, checked with its rules.
 */

type Customer = { name: string; email: string | null; phone: string | null }
type Files = { upload_id: string; role: string | null }[]
interface ItemState {
  quantity: number
  personalization: Record<string, string | number | boolean | null>
  files: Files
}

const same = (a: unknown, b: unknown) => JSON.stringify(a) === JSON.stringify(b)

/** The order as it is to be, what changed, and the file references to check. */
export function planChange(row: OrderRow, items: ItemWithJob[], change: OrderChangeRequest) {
  const changed: string[] = []
  const customerBefore: Customer = {
    name: row.customer_name,
    email: row.customer_email,
    phone: row.customer_phone,
  }
  let customer = customerBefore
  if (change.customer) {
    customer = {
      name: change.customer.name,
      email: change.customer.email ?? null,
      phone: change.customer.phone ?? null,
    }
    for (const field of ['name', 'email', 'phone'] as const) {
      if (customer[field] !== customerBefore[field]) changed.push(`customer.${field}`)
    }
  }
  const errors: ValidationEntry[] = []
  const byId = new Map(items.map((item, n) => [item.id, n]))
  const states: ItemState[] = items.map((i) => ({
    quantity: i.quantity,
    personalization: i.personalization,
    files: i.files.map((f) => ({ upload_id: f.upload_id, role: f.role ?? null })),
  }))
  const touched = new Set<number>()
  /** Where each item was first named in the change. */
  const named = new Map<number, number>()
  ;(change.items ?? []).forEach((c, k) => {
    const n = byId.get(c.id)
    if (n === undefined) {
      errors.push({
        code: 'invalid_format',
        field: `items[${k}].id`,
        message: `items[${k}].id is not an item of this order`,
      })
      return
    }
    const first = named.get(n)
    if (first !== undefined) {
      errors.push({
        code: 'invalid_format',
        field: `items[${k}].id`,
        message: `items[${k}] names the same item as items[${first}]: list each item once, with all its changes.`,
      })
      return
    }
    named.set(n, k)
    const state = states[n]!
    if (c.quantity !== undefined && c.quantity !== state.quantity) {
      state.quantity = c.quantity
      changed.push(`items[${n}].quantity`)
    }
    if (c.personalization !== undefined && !same(c.personalization, state.personalization)) {
      state.personalization = c.personalization
      changed.push(`items[${n}].personalization`)
    }
    const removed = new Set(c.remove_files ?? [])
    for (const id of removed) {
      if (!state.files.some((f) => f.upload_id === id)) {
        errors.push({
          code: 'file_not_found',
          field: `items[${k}].remove_files`,
          message: `The item has no file with upload_id ${id}.`,
        })
      }
    }
    const files = [
      ...state.files.filter((f) => !removed.has(f.upload_id)),
      ...(c.add_files ?? []).map((f) => ({ upload_id: f.upload_id, role: f.role ?? null })),
    ]
    if (!same(files, state.files)) {
      state.files = files
      changed.push(`items[${n}].files`)
    }
    touched.add(n)
  })
  // The whole order as POST /v1/orders would receive it: its rules, its messages.
  const candidate = {
    external_order_id: row.external_order_id,
    customer: {
      name: customer.name,
      ...(customer.email === null ? {} : { email: customer.email }),
      ...(customer.phone === null ? {} : { phone: customer.phone }),
    },
    items: items.map((item, n) => ({
      sku: item.sku,
      name: item.name,
      quantity: states[n]!.quantity,
      personalization: states[n]!.personalization,
      files: states[n]!.files.map((f) => (f.role === null ? { upload_id: f.upload_id } : f)),
    })),
  }
  errors.push(...bodyErrors(OrderRequest, candidate))
  return { customer, customerBefore, states, touched, changed, errors, candidate }
}

export type ChangePlan = ReturnType<typeof planChange>
