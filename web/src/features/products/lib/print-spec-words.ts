import type { Product } from '../../../lib/api.ts'

/**
 * The service's limits on a print specification (test/dashboard/limits.unit.test.ts
 * holds them to src/modules/products/print-spec.ts), and a spec in a line.
 */
export const PRINT_SPEC_LIMITS = {
  mm: 5000,
  dpi: { min: 30, max: 2400, default: 150 },
  bleedMm: 50,
  pages: 1000,
  roles: 20,
  role: 40,
} as const

/** A spec as the service answers it, every field set. */
export type Spec = NonNullable<NonNullable<Product['print_spec']>['default']>

/** "420 × 594 mm, 150 dpi, 3 mm bleed, CMYK, 1 page, no transparency", as the audit log says it. */
export function describePrintSpec(spec: Spec): string {
  const parts = [`${spec.width_mm} \u00d7 ${spec.height_mm} mm`, `${spec.min_dpi} dpi`]
  if (spec.bleed_mm > 0) parts.push(`${spec.bleed_mm} mm bleed`)
  if (spec.colour !== 'any') parts.push(spec.colour.toUpperCase())
  if (spec.pages !== null) parts.push(`${spec.pages} ${spec.pages === 1 ? 'page' : 'pages'}`)
  if (!spec.transparency) parts.push('no transparency')
  return parts.join(', ')
}

/** Every spec of a product in a line each: "Every file: …", "front: …". */
export function describePrintSpecs(specs: NonNullable<Product['print_spec']>): string[] {
  return [
    ...(specs.default ? [`Every file: ${describePrintSpec(specs.default)}`] : []),
    ...Object.entries(specs.roles).map(([role, spec]) => `${role}: ${describePrintSpec(spec)}`),
  ]
}
