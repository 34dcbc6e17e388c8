import { Alert, Button, Group, Paper, Stack, TextInput, Title } from '@mantine/core'
import { type FormEvent, type RefObject, useState } from 'react'
import { ErrorAlert } from '../../../components/error-alert.tsx'
import { useCreateProduct } from '../api/products.ts'

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

  const submit = (e: FormEvent) => {
    e.preventDefault()
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
            onChange={(e) => onSkuChange(e.currentTarget.value)}
            w={240}
          />
          <TextInput
            label="Name"
            required
            maxLength={255}
            ref={nameRef}
            value={name}
            onChange={(e) => setName(e.currentTarget.value)}
            w={320}
          />
          <Button type="submit" loading={create.isPending}>
            Add product
          </Button>
        </Group>
      </form>
      <Stack mt="md">
        <ErrorAlert error={create.error} title="No product was added" />
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
