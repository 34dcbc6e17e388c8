/**
 * The service's limits on what forms send, so a form refuses what the service
 * would before sending (test/dashboard/limits.unit.test.ts holds them to the
 * service's schemas).
 */
export const ORDER_LIMITS = {
  quantity: { min: 1, max: 10_000 },
  personalizationFields: 50,
  personalizationKey: { min: 1, max: 100 },
  personalizationValue: { max: 5000 },
  role: { max: 40 },
  customerName: { min: 1, max: 255 },
  customerEmail: { max: 320 },
  customerPhone: { max: 50 },
} as const

/** The production calendar's and a product's lead time (working days). */
export const CALENDAR_LIMITS = {
  leadTimeDays: { min: 0, max: 90 },
  closedDays: 200,
  note: { max: 200 },
  timeZone: { min: 1, max: 64 },
} as const

/** A batch's name, the SKU of a batch-all selection, a failed batch's reason; the orders a batch holds. */
export const BATCH_LIMITS = {
  name: { min: 1, max: 100 },
  sku: { min: 1, max: 100 },
  reason: { max: 500 },
  orders: 500,
} as const

/** A station's name; what a station's scan field sends (a scanner's text). */
export const STATION_LIMITS = {
  name: { min: 1, max: 60 },
  code: { min: 1, max: 200 },
} as const
