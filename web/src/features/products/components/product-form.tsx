import { Alert, Button, Group, Paper, Stack, TextInput, Title } from '@mantine/core'
import { type FormEvent, type RefObject, useState } from 'react'
import { RefusalAlert } from '../../../components/error-alert.tsx'
import { checkLength } from '../../../lib/field-errors.ts'
import { useFieldMessages } from '../../../lib/use-field-messages.ts'
import { useCreateProduct } from '../api/products.ts'

/** What the service may name in a refusal, in this form's words. */
const LABELS = { sku: 'SKU', name: 'Name' }

/**
 * Add a product: it links the items already received with its SKU (test and
 * live) and every later one; the answer says how many it linked.
 */
export function ProductForm({
  sku,
  onSkuChange,
  nameRef,
}: {
  sku: string
  onSkuChange: (sku: string) => void
  nameRef: RefObject<HTMLInputElement | null>
}) {
  const create = useCreateProduct()
  const [name, setName] = useState('')
  // The form's own checks (the service's limits: 1 to 255 characters each), shown until the field changes.
  const { refusal, message, check, changed } = useFieldMessages(create.error, LABELS)

  const submit = (e: FormEvent) => {
    e.preventDefault()
    const passes = check({
      sku: checkLength('SKU', sku.trim(), { min: 1, max: 255 }),
      name: checkLength('Name', name.trim(), { min: 1, max: 255 }),
    })
    if (!passes) return
    create.mutate(
      { sku: sku.trim(), name: name.trim() },
      {
        onSuccess: () => {
          onSkuChange('')
          setName('')
        },
      },
    )
  }
  const created = create.data
  return (
    <Paper withBorder p="lg" radius="md" component="section" aria-labelledby="add-product-heading">
      <Title order={2} size="h3" id="add-product-heading" mb="sm">
        Add a product
      </Title>
      <form onSubmit={submit}>
        <Group align="flex-end">
          <TextInput
            label="SKU"
            required
            maxLength={255}
            value={sku}
            error={message('sku')}
            onChange={(e) => {
              changed('sku')
              onSkuChange(e.currentTarget.value)
            }}
            w={240}
          />
          <TextInput
            label="Name"
            required
            maxLength={255}
            ref={nameRef}
            value={name}
            error={message('name')}
            onChange={(e) => {
              changed('name')
              setName(e.currentTarget.value)
            }}
            w={320}
          />
          <Button type="submit" loading={create.isPending}>
            Add product
          </Button>
        </Group>
      </form>
      <Stack mt="md">
        <RefusalAlert refusal={refusal} title="No product was added" />
        {created && !create.isPending && (
          <Alert color="green" variant="default" role="status" title={`Product ${created.product.sku} added`}>
            {created.linked_items === 0
              ? 'It linked no existing item; orders with this SKU link to it as they arrive.'
              : `It linked ${created.linked_items} existing ${created.linked_items === 1 ? 'item' : 'items'}; later orders with this SKU link to it as they arrive.`}
          </Alert>
        )}
      </Stack>
    </Paper>
  )
}
