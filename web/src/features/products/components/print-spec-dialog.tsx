import {
  Button,
  Checkbox,
  Fieldset,
  Group,
  Modal,
  NumberInput,
  Select,
  SimpleGrid,
  Stack,
  Text,
  TextInput,
} from '@mantine/core'
import { type FormEvent, useState } from 'react'
import { RefusalAlert } from '../../../components/error-alert.tsx'
import type { Product } from '../../../lib/api.ts'
import { checkLength } from '../../../lib/field-errors.ts'
import { useFieldMessages } from '../../../lib/use-field-messages.ts'
import { type PrintSpecsInput, useSetPrintSpecs } from '../api/products.ts'
import { PRINT_SPEC_LIMITS, type Spec } from '../lib/print-spec-words.ts'

/** A spec as the form holds it: numbers as typed; for every file, or for the files of a role. */
interface Draft {
  every: boolean
  role: string
  width: number | string
  height: number | string
  dpi: number | string
  bleed: number | string
  colour: Spec['colour']
  pages: number | string
  transparency: boolean
}

const draftOf = (every: boolean, role: string, spec: Spec | null): Draft => ({
  every,
  role,
  width: spec?.width_mm ?? '',
  height: spec?.height_mm ?? '',
  dpi: spec?.min_dpi ?? PRINT_SPEC_LIMITS.dpi.default,
  bleed: spec?.bleed_mm ?? 0,
  colour: spec?.colour ?? 'any',
  pages: spec?.pages ?? '',
  transparency: spec?.transparency ?? true,
})

const draftsOf = (product: Product): Draft[] => {
  const specs = product.print_spec
  if (!specs) return [draftOf(true, '', null)]
  return [
    ...(specs.default ? [draftOf(true, '', specs.default)] : []),
    ...Object.entries(specs.roles).map(([role, spec]) => draftOf(false, role, spec)),
  ]
}

const numberOr = (value: number | string, fallback: number | null) =>
  value === '' ? fallback : Number(value)

/** The API's path of a draft's spec: `print_spec.default` or `print_spec.roles.front`. */
const pathOf = (d: Draft) => (d.every ? 'print_spec.default' : `print_spec.roles.${d.role.trim()}`)

const COLOURS = [
  { value: 'any', label: 'Any' },
  { value: 'rgb', label: 'RGB' },
  { value: 'cmyk', label: 'CMYK' },
]

/**
 * A product's print specifications: one for every file, and one per file role
 * where a role's files differ (a mug's `wrap`, a card's `front` and `back`).
 * Each field says what it is; what the form or the service refuses is said
 * beside it.
 */
export function PrintSpecDialog({ product, onClose }: { product: Product; onClose: () => void }) {
  const save = useSetPrintSpecs()
  const [drafts, setDrafts] = useState<Draft[]>(() => draftsOf(product))
  const labels = (field: string) => {
    const match = /^print_spec\.(default|roles\.(.+))\.(\w+)$/.exec(field)
    if (!match) return field === 'print_spec' ? 'Print specification' : undefined
    const words: Record<string, string> = {
      width_mm: 'Width',
      height_mm: 'Height',
      min_dpi: 'Least resolution',
      bleed_mm: 'Bleed',
      colour: 'Colour',
      pages: 'Pages',
    }
    return words[match[3]!]
  }
  const fields = useFieldMessages(save.error, labels)
  const { refusal } = fields
  const message = (d: Draft, field: string) => fields.message(`${pathOf(d)}.${field}`)
  const set = (n: number, change: Partial<Draft>) => {
    fields.clear()
    setDrafts((all) => all.map((d, i) => (i === n ? { ...d, ...change } : d)))
  }

  const submit = (event: FormEvent) => {
    event.preventDefault()
    const checks: Record<string, string | undefined> = {}
    const seen = new Set<string>()
    for (const d of drafts) {
      const at = pathOf(d)
      const size = (label: string, value: number | string) =>
        value === '' || !(Number(value) > 0) || Number(value) > PRINT_SPEC_LIMITS.mm
          ? `${label} must be more than 0 and at most ${PRINT_SPEC_LIMITS.mm} mm`
          : undefined
      checks[`${at}.width_mm`] = size('Width', d.width)
      checks[`${at}.height_mm`] = size('Height', d.height)
      const dpi = Number(d.dpi)
      if (!Number.isInteger(dpi) || dpi < PRINT_SPEC_LIMITS.dpi.min || dpi > PRINT_SPEC_LIMITS.dpi.max) {
        checks[`${at}.min_dpi`] =
          `Least resolution must be a whole number from ${PRINT_SPEC_LIMITS.dpi.min} to ${PRINT_SPEC_LIMITS.dpi.max} dpi`
      }
      if (!d.every) {
        checks[`${at}.role`] =
          checkLength('Role', d.role.trim(), { min: 1, max: PRINT_SPEC_LIMITS.role }) ??
          (seen.has(d.role.trim()) ? 'Each role has one spec' : undefined)
        seen.add(d.role.trim())
      }
    }
    if (!fields.check(checks)) return
    const spec = (d: Draft) => ({
      width_mm: Number(d.width),
      height_mm: Number(d.height),
      min_dpi: Number(d.dpi),
      bleed_mm: numberOr(d.bleed, 0) ?? 0,
      colour: d.colour,
      pages: numberOr(d.pages, null),
      transparency: d.transparency,
    })
    const every = drafts.find((d) => d.every)
    const printSpec: PrintSpecsInput =
      drafts.length === 0
        ? null
        : {
            default: every ? spec(every) : null,
            roles: Object.fromEntries(drafts.filter((d) => !d.every).map((d) => [d.role.trim(), spec(d)])),
          }
    save.mutate({ productId: product.id, printSpec }, { onSuccess: onClose })
  }

  return (
    <Modal
      opened
      onClose={onClose}
      title={`Print specification of ${product.sku}`}
      size="lg"
      closeButtonProps={{ 'aria-label': 'Close' }}
    >
      <form onSubmit={submit}>
        <Stack>
          <Text size="sm">
            What this product's production files must be to print well; no order or file is refused because of
            it. Give one spec for every file, and one per file role where a role's files differ (the role an
            order gives each file, such as front or back).
          </Text>
          {drafts.map((d, n) => (
            <Fieldset
              // biome-ignore lint/suspicious/noArrayIndexKey: drafts are positions of the form
              key={n}
              legend={d.every ? 'Every file' : `Files with the role ${d.role.trim() || '…'}`}
            >
              <Stack gap="xs">
                {!d.every && (
                  <TextInput
                    label="Role"
                    description="As the order names it in files[].role"
                    maxLength={PRINT_SPEC_LIMITS.role}
                    value={d.role}
                    error={message(d, 'role')}
                    onChange={(e) => set(n, { role: e.currentTarget.value })}
                  />
                )}
                <SimpleGrid cols={{ base: 1, sm: 2 }}>
                  <NumberInput
                    label="Width (mm)"
                    description="Of the print area"
                    withAsterisk
                    min={0}
                    max={PRINT_SPEC_LIMITS.mm}
                    decimalScale={1}
                    value={d.width}
                    error={message(d, 'width_mm')}
                    onChange={(v) => set(n, { width: v })}
                  />
                  <NumberInput
                    label="Height (mm)"
                    description="Of the print area"
                    withAsterisk
                    min={0}
                    max={PRINT_SPEC_LIMITS.mm}
                    decimalScale={1}
                    value={d.height}
                    error={message(d, 'height_mm')}
                    onChange={(v) => set(n, { height: v })}
                  />
                  <NumberInput
                    label="Least resolution (dpi)"
                    description="Pixels per inch at the print area's size"
                    min={PRINT_SPEC_LIMITS.dpi.min}
                    max={PRINT_SPEC_LIMITS.dpi.max}
                    allowDecimal={false}
                    value={d.dpi}
                    error={message(d, 'min_dpi')}
                    onChange={(v) => set(n, { dpi: v })}
                  />
                  <NumberInput
                    label="Bleed (mm)"
                    description="Beyond the print area, on each side"
                    min={0}
                    max={PRINT_SPEC_LIMITS.bleedMm}
                    decimalScale={1}
                    value={d.bleed}
                    error={message(d, 'bleed_mm')}
                    onChange={(v) => set(n, { bleed: v })}
                  />
                  <Select
                    label="Colour"
                    description="The colour space files must be in"
                    data={COLOURS}
                    value={d.colour}
                    allowDeselect={false}
                    error={message(d, 'colour')}
                    onChange={(v) => v && set(n, { colour: v as Spec['colour'] })}
                  />
                  <NumberInput
                    label="Pages (PDF)"
                    description="Empty: any number"
                    min={1}
                    max={PRINT_SPEC_LIMITS.pages}
                    allowDecimal={false}
                    value={d.pages}
                    error={message(d, 'pages')}
                    onChange={(v) => set(n, { pages: v })}
                  />
                </SimpleGrid>
                <Checkbox
                  label="Transparency allowed"
                  description="Off: a file with see-through pixels is a problem, to be flattened onto its background"
                  checked={d.transparency}
                  onChange={(e) => set(n, { transparency: e.currentTarget.checked })}
                />
                <Group justify="flex-end">
                  <Button
                    variant="subtle"
                    color="red"
                    onClick={() => setDrafts((all) => all.filter((_, i) => i !== n))}
                  >
                    {d.every
                      ? 'Remove the spec of every file'
                      : `Remove the spec of ${d.role.trim() || `role ${n + 1}`}`}
                  </Button>
                </Group>
              </Stack>
            </Fieldset>
          ))}
          {drafts.length === 0 && (
            <Text size="sm" c="dimmed">
              No spec: saving removes the product's print specification.
            </Text>
          )}
          <Group>
            <Button variant="default" onClick={() => setDrafts((all) => [...all, draftOf(false, '', null)])}>
              Add a spec for a file role
            </Button>
            {!drafts.some((d) => d.every) && (
              <Button variant="default" onClick={() => setDrafts((all) => [draftOf(true, '', null), ...all])}>
                Add a spec for every file
              </Button>
            )}
          </Group>
          <RefusalAlert refusal={refusal} title="The print specification was not saved" />
          <Group justify="flex-end">
            <Button variant="default" onClick={onClose}>
              Cancel
            </Button>
            <Button type="submit" loading={save.isPending}>
              Save print specification
            </Button>
          </Group>
        </Stack>
      </form>
    </Modal>
  )
}
