import assert from 'node:assert/strict'
import { test } from 'node:test'
import { CustomerRequest, ItemRequest, LIMITS } from '../../src/modules/orders/orders.schemas.ts'
import { describePrintSpec, PRINT_SPEC_LIMITS } from '../../src/modules/products/print-spec.ts'
import {
  PRINT_SPEC_LIMITS as WEB_PRINT_SPEC_LIMITS,
  describePrintSpec as webDescribe,
} from '../../web/src/features/products/lib/print-spec-words.ts'
import { ORDER_LIMITS } from '../../web/src/lib/limits.ts'

test("the dashboard's order limits are the service's", () => {
  const quantity = ItemRequest.properties.quantity as unknown as { minimum: number; maximum: number }
  assert.deepEqual(ORDER_LIMITS.quantity, { min: quantity.minimum, max: quantity.maximum })
  assert.equal(ORDER_LIMITS.personalizationFields, LIMITS.personalizationFields)
  assert.deepEqual(ORDER_LIMITS.personalizationKey, { min: 1, max: LIMITS.personalizationKey })
  assert.deepEqual(ORDER_LIMITS.personalizationValue, { max: LIMITS.personalizationValue })
  assert.deepEqual(ORDER_LIMITS.role, { max: LIMITS.role })
  const length = (schema: unknown) => {
    // Optional and nullable fields wrap their string schema in anyOf.
    const s = schema as { minLength?: number; maxLength?: number; anyOf?: unknown[] }
    const text = (s.anyOf?.find((x) => (x as { type?: string }).type === 'string') ?? s) as typeof s
    return { ...(text.minLength === undefined ? {} : { min: text.minLength }), max: text.maxLength }
  }
  assert.deepEqual(ORDER_LIMITS.customerName, length(CustomerRequest.properties.name))
  assert.deepEqual(ORDER_LIMITS.customerEmail, length(CustomerRequest.properties.email))
  assert.deepEqual(ORDER_LIMITS.customerPhone, length(CustomerRequest.properties.phone))
})

test("the Products page's print specification limits and words are the service's", () => {
  assert.deepEqual(WEB_PRINT_SPEC_LIMITS, PRINT_SPEC_LIMITS)
  const spec = {
    width_mm: 420,
    height_mm: 594,
    min_dpi: 150,
    bleed_mm: 3,
    colour: 'cmyk' as const,
    pages: 1,
    transparency: false,
  }
  assert.equal(webDescribe(spec), describePrintSpec(spec))
  assert.equal(webDescribe(spec), '420 \u00d7 594 mm, 150 dpi, 3 mm bleed, CMYK, 1 page, no transparency')
})
