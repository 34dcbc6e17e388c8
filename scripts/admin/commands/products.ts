/** Commands for an organization's products and their print specifications. */
import { describePrintSpec } from '../../../src/modules/products/print-spec.ts'
import { relativeTime, table } from '../format.ts'
import { type Command, integer, type Json, type RunContext, str } from './command.ts'

/** A number option (decimals allowed), or undefined when left out. */
function decimal(ctx: RunContext, name: string): number | undefined {
  const value = str(ctx, name)
  if (value === undefined) return undefined
  if (!/^\d+(\.\d+)?$/.test(value)) ctx.usageError(`--${name} takes a number, such as 420 or 3.5`)
  return Number(value)
}

export const PRODUCTS_COMMANDS: Command[] = [
  {
    name: 'products print-spec',
    args: ['PRODUCT_ID'],
    summary:
      "Set the print specification of a product's files (every file), or --remove it; per file role: the API (docs/preflight.md)",
    example: 'products print-spec PRODUCT_ID --width-mm 420 --height-mm 594 --dpi 150 --bleed-mm 3',
    options: {
      'width-mm': { type: 'string', value: 'MM', description: 'the print area: its width' },
      'height-mm': { type: 'string', value: 'MM', description: 'the print area: its height' },
      dpi: { type: 'string', value: 'N', description: 'the least effective resolution (150)' },
      'bleed-mm': { type: 'string', value: 'MM', description: 'bleed on each side (0)' },
      colour: {
        type: 'string',
        value: 'any|rgb|cmyk',
        description: 'the colour space files must be in (any)',
      },
      pages: { type: 'string', value: 'N', description: 'pages a PDF must have (any number)' },
      'no-transparency': { type: 'boolean', description: 'transparent pixels are not allowed' },
      remove: { type: 'boolean', description: 'remove the print specification' },
    },
    async run(ctx) {
      let printSpec: Json = null
      if (!ctx.options.remove) {
        const colour = str(ctx, 'colour')
        if (colour !== undefined && !['any', 'rgb', 'cmyk'].includes(colour)) {
          ctx.usageError('--colour takes any, rgb or cmyk')
        }
        const width = decimal(ctx, 'width-mm')
        const height = decimal(ctx, 'height-mm')
        if (width === undefined || height === undefined)
          ctx.usageError('--width-mm and --height-mm are required')
        const dpi = integer(ctx, 'dpi')
        const bleed = decimal(ctx, 'bleed-mm')
        const pages = integer(ctx, 'pages')
        printSpec = {
          default: {
            width_mm: width,
            height_mm: height,
            ...(dpi === undefined ? {} : { min_dpi: dpi }),
            ...(bleed === undefined ? {} : { bleed_mm: bleed }),
            ...(colour === undefined ? {} : { colour }),
            ...(pages === undefined ? {} : { pages }),
            ...(ctx.options['no-transparency'] ? { transparency: false } : {}),
          },
        }
      }
      const { product } = (
        await ctx.call('PUT', `/products/${ctx.args[0]}/print-spec`, { print_spec: printSpec })
      ).data
      ctx.print(product, () => {
        const specs = product.print_spec
        if (!specs) return `Removed the print specification of ${product.sku}.`
        const lines = [
          ...(specs.default ? [`  every file: ${describePrintSpec(specs.default)}`] : []),
          ...Object.entries(specs.roles).map(
            ([role, spec]) => `  ${role}: ${describePrintSpec(spec as Json)}`,
          ),
        ]
        return [`Print specification of ${product.sku}:`, ...lines].join('\n')
      })
    },
  },
  {
    name: 'products list',
    args: ['ORG_ID'],
    summary: "An organization's products",
    example: 'products list ORG_ID',
    async run(ctx) {
      const { data } = await ctx.call('GET', `/organizations/${ctx.args[0]}/products`)
      ctx.print(data, () =>
        table<Json>(
          data,
          [
            ['ID', (p) => p.id],
            ['SKU', (p) => p.sku],
            ['NAME', (p) => p.name],
            ['CREATED', (p) => relativeTime(p.created_at)],
          ],
          'No products.',
        ),
      )
    },
  },
  {
    name: 'products create',
    args: ['ORG_ID', 'SKU', 'NAME'],
    summary: "A product; the organization's items with this sku link to it",
    example: 'products create ORG_ID MUG-01 "Photo mug"',
    async run(ctx) {
      const [org, sku, name] = ctx.args
      const { product } = (await ctx.call('POST', `/organizations/${org}/products`, { sku, name })).data
      ctx.print(product, () => `Created product ${product.sku} "${product.name}" (${product.id})`)
    },
  },
]
