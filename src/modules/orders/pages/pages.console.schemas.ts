import Type, { type Static } from 'typebox'
import { Uuid } from '../../../http/schemas.ts'
import { OperatorOrder } from '../orders.schemas.ts'

/** The operator console's shop orders. */

export const ShopOrderCreated = Type.Object({
  data: Type.Object({
    order: OperatorOrder,
    created: Type.Boolean({ description: 'false: the same order was sent before (nothing new).' }),
    events: Type.Array(Type.Object({}), {
      maxItems: 0,
      description: 'Always empty: shop orders produce no events.',
    }),
  }),
})

export type ShopOrderCreated = Static<typeof ShopOrderCreated>

export const OperatorOrderAnswer = Type.Object({ data: Type.Object({ order: OperatorOrder }) })

/** The console's order page: the order and its organization by name. */
export const OperatorOrderPageAnswer = Type.Object({
  data: Type.Object({
    order: OperatorOrder,
    organization: Type.Object(
      { id: Uuid, name: Type.String() },
      { description: 'The organization of the order, by its name.' },
    ),
  }),
})

export const OperatorOrderChanged = Type.Object({
  data: Type.Object({ order: OperatorOrder, changed: Type.Array(Type.String()) }),
})
