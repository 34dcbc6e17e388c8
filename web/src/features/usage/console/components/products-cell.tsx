import { formatNumber } from '../../../../lib/format.ts'
import type { OrganizationUsage } from '../api/platform-usage.ts'

/** An organization's quantity per product, then what is linked to no product. */
export function productsText(o: Pick<OrganizationUsage, 'products' | 'unlinked'>): string {
  const parts = o.products.map((p) => `${p.sku ?? p.product_id} × ${formatNumber(p.quantity)}`)
  if (o.unlinked.quantity > 0) parts.push(`no product × ${formatNumber(o.unlinked.quantity)}`)
  return parts.join(', ') || '–'
}
