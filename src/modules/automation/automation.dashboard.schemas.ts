import Type, { type Static } from 'typebox'
import { Timestamp, Uuid } from '../../http/schemas.ts'
import { ACTIONS, FIELDS, MAX_ACTIONS, MAX_CONDITIONS, MAX_RULES } from './automation.rules.ts'

/** The Automation page's schemas. */

const closed = { additionalProperties: false } as const

export const Condition = Type.Object(
  {
    field: Type.String({
      maxLength: 100,
      description: `What the condition reads: ${Object.keys(FIELDS).join(', ')}.`,
    }),
    operator: Type.String({
      maxLength: 100,
      description: 'How it compares; each field has its own operators (GET /automation/fields).',
    }),
    key: Type.Optional(
      Type.String({ maxLength: 1000, description: 'item.personalization: the personalization field read.' }),
    ),
    value: Type.Optional(
      Type.Union(
        [
          Type.String({ maxLength: 1000 }),
          Type.Number(),
          Type.Array(Type.String({ maxLength: 1000 }), { maxItems: 1000 }),
        ],
        {
          description: 'What it compares with; left out by operators that take none (present, linked...).',
        },
      ),
    ),
  },
  closed,
)

export const Action = Type.Object(
  {
    type: Type.String({ maxLength: 100, description: `${Object.keys(ACTIONS).join(', ')}.` }),
    value: Type.Optional(
      Type.String({ maxLength: 1000, description: 'priority: rush or normal; tag: the tag.' }),
    ),
  },
  closed,
)

export const Rule = Type.Object({
  id: Uuid,
  position: Type.Integer({ description: 'The rule\u2019s place in the order rules run in, from 1.' }),
  name: Type.String(),
  enabled: Type.Boolean(),
  conditions: Type.Array(Condition),
  actions: Type.Array(Action),
  description: Type.String({ description: 'The conditions in words.' }),
  created_at: Timestamp,
  updated_at: Timestamp,
})
export type Rule = Static<typeof Rule>

export const RuleList = Type.Object({
  data: Type.Object({
    rules: Type.Array(Rule),
    max_rules: Type.Integer({ description: `At most ${MAX_RULES} rules an organization.` }),
  }),
})

export const RuleAnswer = Type.Object({ data: Type.Object({ rule: Rule }) })

/**
 * A rule as the page sends it. The service checks it field by field (every
 * problem named: `conditions[2].operator`), so the schema only says it is an
 * object.
 */
export const RuleBody = Type.Unsafe<unknown>({
  type: 'object',
  additionalProperties: false,
  description: `name (1 to 100 characters), enabled (default true), conditions (0 to ${MAX_CONDITIONS}, all must hold) and actions (1 to ${MAX_ACTIONS}).`,
  properties: {
    name: { type: 'string', maxLength: 1000 },
    enabled: { type: 'boolean' },
    conditions: { type: 'array', items: Condition, maxItems: MAX_CONDITIONS },
    actions: { type: 'array', items: Action, maxItems: MAX_ACTIONS },
  },
})

export const RuleParams = Type.Object({ rule_id: Type.String() }, closed)

export const ReorderBody = Type.Object(
  {
    rule_ids: Type.Array(Uuid, {
      maxItems: MAX_RULES,
      description: 'Every rule\u2019s id once, in the new order.',
    }),
  },
  closed,
)

export const RuleDeleted = Type.Object({ data: Type.Object({ deleted: Type.Literal(true), id: Uuid }) })

const Operator = Type.Object({
  operator: Type.String(),
  label: Type.String(),
  value: Type.String({
    enum: ['none', 'text', 'number', 'integer', 'texts', 'currency', 'source'],
    description:
      'What the value is: none, a text, a number, a whole number, a list of texts, a currency code, or api/shop.',
  }),
})

export const FieldCatalog = Type.Object({
  data: Type.Object({
    fields: Type.Array(
      Type.Object({
        field: Type.String(),
        label: Type.String(),
        scope: Type.String({ enum: ['item', 'order'] }),
        key: Type.Boolean({ description: 'Whether the condition names a personalization field.' }),
        operators: Type.Array(Operator),
      }),
    ),
    actions: Type.Array(
      Type.Object({
        type: Type.String(),
        label: Type.String(),
        value: Type.String({ enum: ['none', 'priority', 'tag'] }),
      }),
    ),
    limits: Type.Object({
      rules: Type.Integer(),
      conditions: Type.Integer(),
      actions: Type.Integer(),
    }),
  }),
})

export const DryRunAnswer = Type.Object({
  data: Type.Object({
    checked: Type.Integer({ description: 'Live orders read: the latest 100 (fewer when there are fewer).' }),
    matched: Type.Integer(),
    orders: Type.Array(
      Type.Object({
        id: Uuid,
        external_order_id: Type.String(),
        status: Type.String(),
        created_at: Timestamp,
      }),
      { description: 'The orders the rule would have matched, newest first.' },
    ),
  }),
})
