import { Button, Group, NumberInput, Text } from '@mantine/core'
import { type FormEvent, useState } from 'react'
import type { Product } from '../../../lib/api.ts'
import { checkWholeNumber } from '../../../lib/field-errors.ts'
import { CALENDAR_LIMITS } from '../../../lib/limits.ts'
import { useFieldMessages } from '../../../lib/use-field-messages.ts'
import { useSetLeadTime } from '../api/products.ts'

const LABELS = { lead_time_days: 'Lead time' }

/** A product's lead time in words: its own, or the platform's default. */
export const leadTimeWords = (days: number | null) =>
  days === null ? "Platform's default" : `${days} working ${days === 1 ? 'day' : 'days'}`

/**
 * A product's lead time, set by owners and developers: working days from an
 * order to its due date; blank takes the platform's default. Saving dates
 * its open orders again.
 */
export function LeadTimeField({ product }: { product: Product }) {
  const save = useSetLeadTime()
  const [value, setValue] = useState<number | string>(product.lead_time_days ?? '')
  const { refusal, message, check, changed } = useFieldMessages(save.error, LABELS)
  const submit = (event: FormEvent) => {
    event.preventDefault()
    const blank = String(value).trim() === ''
    if (
      !blank &&
      !check({ lead_time_days: checkWholeNumber('Lead time', value, CALENDAR_LIMITS.leadTimeDays) })
    )
      return
    save.mutate({ productId: product.id, leadTimeDays: blank ? null : Number(value) })
  }
  const others = refusal?.others.join(' ')
  return (
    <form onSubmit={submit} noValidate>
      <Group gap="xs" align="flex-start" wrap="nowrap">
        <NumberInput
          aria-label={`Lead time of ${product.sku} (working days)`}
          placeholder="Platform's default"
          min={CALENDAR_LIMITS.leadTimeDays.min}
          max={CALENDAR_LIMITS.leadTimeDays.max}
          allowDecimal={false}
          value={value}
          error={message('lead_time_days') ?? others}
          onChange={(v) => {
            changed('lead_time_days')
            save.reset()
            setValue(v)
          }}
          w={150}
          size="xs"
        />
        <Button
          type="submit"
          size="xs"
          variant="default"
          loading={save.isPending}
          aria-label={`Save lead time of ${product.sku}`}
        >
          Save
        </Button>
      </Group>
      {save.data && !save.isPending && (
        <Text size="xs" role="status" mt={4}>
          Saved: {leadTimeWords(save.data.product.lead_time_days)};{' '}
          {save.data.redated_orders === 0
            ? 'no open order needed dating again.'
            : `${save.data.redated_orders} open ${save.data.redated_orders === 1 ? 'order' : 'orders'} dated again.`}
        </Text>
      )}
    </form>
  )
}
