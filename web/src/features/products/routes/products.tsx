import { useRef, useState } from 'react'
import { useSearchParams } from 'react-router'
import { Page } from '../../../components/page.tsx'
import { useSession } from '../../auth/api/session.ts'
import { Catalog } from '../components/catalog.tsx'
import { ProductForm } from '../components/product-form.tsx'
import { UnmatchedSkus } from '../components/unmatched-skus.tsx'

/** /products (?sku= pre-fills the form, as "Create product" on an order's item does). */
export function ProductsRoute() {
  const me = useSession().data!
  const canCreate = me.role !== 'viewer'
  const [params] = useSearchParams()
  const [sku, setSku] = useState(params.get('sku') ?? '')
  const nameRef = useRef<HTMLInputElement>(null)

  const startFrom = (unmatched: string) => {
    setSku(unmatched)
    nameRef.current?.focus()
  }
  return (
    <Page
      title="Products"
      lead="Items link to a product by SKU. A new product links the items already received with its SKU, and every later one."
    >
      {canCreate && <ProductForm sku={sku} onSkuChange={setSku} nameRef={nameRef} />}
      <UnmatchedSkus onCreate={canCreate ? startFrom : undefined} />
      <Catalog canEdit={canCreate} />
    </Page>
  )
}
