import type { Surfaces } from '../feature.ts'
import { productsAdminRoutes } from './products.admin.routes.ts'
import { productsDashboardRoutes } from './products.dashboard.routes.ts'
import type { ProductService } from './products.service.ts'

export { createProductService, type ProductService } from './products.service.ts'

/** The product catalog an order's SKUs are matched against. */
export function productsSurfaces(s: { products: ProductService }): Surfaces {
  return { admin: [productsAdminRoutes(s)], dashboard: [(app) => productsDashboardRoutes(app, s)] }
}
