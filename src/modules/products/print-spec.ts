import Type, { type Static } from 'typebox'
import type { PrintSpec, PrintSpecs } from '../../db/schema.ts'
import { AppError, type ValidationEntry } from '../../http/errors.ts'
import { Nullable } from '../../http/schemas.ts'

/** A print specification's limits and defaults, stated by docs/preflight.md. */
export const PRINT_SPEC_LIMITS = {
  mm: 5000,
  dpi: { min: 30, max: 2400, default: 150 },
  bleedMm: 50,
  pages: 1000,
  roles: 20,
  role: 40,
} as const

const closed = { additionalProperties: false } as const

const mm = (description: string) =>
  Type.Number({ exclusiveMinimum: 0, maximum: PRINT_SPEC_LIMITS.mm, description })

/** One spec as the API takes it: the print area is required, the rest has defaults. */
export const PrintSpecInput = Type.Object(
  {
    width_mm: mm('The print area: its width in millimetres.'),
    height_mm: mm('The print area: its height in millimetres.'),
    min_dpi: Type.Optional(
      Type.Integer({
        minimum: PRINT_SPEC_LIMITS.dpi.min,
        maximum: PRINT_SPEC_LIMITS.dpi.max,
        description: `The least effective resolution at the print area, in dots per inch (${PRINT_SPEC_LIMITS.dpi.default} when left out).`,
      }),
    ),
    bleed_mm: Type.Optional(
      Type.Number({
        minimum: 0,
        maximum: PRINT_SPEC_LIMITS.bleedMm,
        description: 'Bleed on each side, in millimetres (0 when left out).',
      }),
    ),
    colour: Type.Optional(
      Type.Union([Type.Literal('any'), Type.Literal('rgb'), Type.Literal('cmyk')], {
        description: 'The colour space files must be in (any when left out).',
      }),
    ),
    pages: Type.Optional(
      Nullable(
        Type.Integer({
          minimum: 1,
          maximum: PRINT_SPEC_LIMITS.pages,
          description: 'Pages a PDF must have (any number when left out or null).',
        }),
      ),
    ),
    transparency: Type.Optional(
      Type.Boolean({ description: 'Whether transparent pixels are allowed (true when left out).' }),
    ),
  },
  closed,
)
export type PrintSpecInput = Static<typeof PrintSpecInput>

/** A product's specs: one for every file, one per file role (a role's wins), or both. */
export const PrintSpecsInput = Type.Object(
  {
    default: Type.Optional(Nullable(PrintSpecInput)),
    roles: Type.Optional(
      Type.Unsafe<Record<string, PrintSpecInput>>({
        type: 'object',
        maxProperties: PRINT_SPEC_LIMITS.roles,
        additionalProperties: PrintSpecInput,
        description: `A spec per file role (the order's files[].role, 1 to ${PRINT_SPEC_LIMITS.role} characters), at most ${PRINT_SPEC_LIMITS.roles}.`,
      }),
    ),
  },
  closed,
)
export type PrintSpecsInput = Static<typeof PrintSpecsInput>

/** The specs as stored and answered: every field set. */
const PrintSpecSchema = Type.Object({
  width_mm: Type.Number(),
  height_mm: Type.Number(),
  min_dpi: Type.Integer(),
  bleed_mm: Type.Number(),
  colour: Type.Union([Type.Literal('any'), Type.Literal('rgb'), Type.Literal('cmyk')]),
  pages: Type.Union([Type.Integer(), Type.Null()]),
  transparency: Type.Boolean(),
})
export const PrintSpecsSchema = Type.Object({
  default: Type.Union([PrintSpecSchema, Type.Null()]),
  roles: Type.Record(Type.String(), PrintSpecSchema),
})

const complete = (input: PrintSpecInput): PrintSpec => ({
  width_mm: input.width_mm,
  height_mm: input.height_mm,
  min_dpi: input.min_dpi ?? PRINT_SPEC_LIMITS.dpi.default,
  bleed_mm: input.bleed_mm ?? 0,
  colour: input.colour ?? 'any',
  pages: input.pages ?? null,
  transparency: input.transparency ?? true,
})

/**
 * The specs to store, defaults filled in, or null to remove them; 422 for
 * role names the API cannot hold (1 to 40 characters, no control characters,
 * at most 20) and for specs that check nothing (no default and no role).
 */
export function normalizePrintSpecs(input: PrintSpecsInput | null): PrintSpecs | null {
  if (input === null) return null
  const roles = Object.entries(input.roles ?? {})
  const problems: ValidationEntry[] = []
  if (roles.length > PRINT_SPEC_LIMITS.roles) {
    problems.push({
      code: 'too_large',
      field: 'print_spec.roles',
      message: `print_spec.roles must have at most ${PRINT_SPEC_LIMITS.roles} roles`,
    })
  }
  for (const [role] of roles) {
    const length = [...role].length
    // biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what is refused
    if (length < 1 || length > PRINT_SPEC_LIMITS.role || /[\u0000-\u001f\u007f]/.test(role)) {
      problems.push({
        code: 'invalid_format',
        field: `print_spec.roles.${role}`,
        message: `print_spec.roles: a role is 1 to ${PRINT_SPEC_LIMITS.role} characters without control characters`,
      })
    }
  }
  if (!input.default && roles.length === 0) {
    problems.push({
      code: 'invalid_format',
      field: 'print_spec',
      message: 'print_spec needs a default spec or a spec for a role; send null to remove it',
    })
  }
  if (problems.length > 0) throw AppError.validation(problems)
  return {
    default: input.default ? complete(input.default) : null,
    roles: Object.fromEntries(roles.map(([role, spec]) => [role, complete(spec)])),
  }
}

/** "420 × 594 mm, 150 dpi, 3 mm bleed, CMYK, 1 page, no transparency": a spec in a line. */
export function describePrintSpec(spec: PrintSpec): string {
  const parts = [`${spec.width_mm} \u00d7 ${spec.height_mm} mm`, `${spec.min_dpi} dpi`]
  if (spec.bleed_mm > 0) parts.push(`${spec.bleed_mm} mm bleed`)
  if (spec.colour !== 'any') parts.push(spec.colour.toUpperCase())
  if (spec.pages !== null) parts.push(`${spec.pages} ${spec.pages === 1 ? 'page' : 'pages'}`)
  if (!spec.transparency) parts.push('no transparency')
  return parts.join(', ')
}
