import type { ValidationEntry } from '../../http/errors.ts'
import {
  ACTIONS,
  type Action,
  type Condition,
  type ConditionField,
  type ConditionValue,
  FIELDS,
  type FieldDefinition,
  MAX_ACTIONS,
  MAX_CONDITIONS,
  MAX_LIST,
  MAX_NAME,
  MAX_TAG,
  MAX_TEXT,
  type RuleDefinition,
  type ValueKind,
} from './automation.rules.ts'

const isObject = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v)
const typeName = (v: unknown) => (v === null ? 'null' : Array.isArray(v) ? 'array' : typeof v)
const oneOf = (values: readonly string[]) => values.join(', ')

/**
 * Checks a rule as the dashboard sends it: every problem as an entry of
 * validation_failed naming its field (`conditions.2.operator`). Returns the
 * rule in its stored form (unknown members refused, texts trimmed).
 */
export function checkRule(input: unknown): { rule?: RuleDefinition; errors: ValidationEntry[] } {
  const errors: ValidationEntry[] = []
  const fail = (code: ValidationEntry['code'], field: string, message: string) => {
    errors.push({ code, field, message })
  }
  if (!isObject(input)) {
    fail('invalid_type', 'rule', `The rule must be an object, not ${typeName(input)}.`)
    return { errors }
  }
  const known = new Set(['name', 'enabled', 'conditions', 'actions'])
  for (const k of Object.keys(input)) {
    if (!known.has(k))
      fail('unknown_field', k, `${k} is not a field of a rule (name, enabled, conditions, actions).`)
  }
  const name = typeof input.name === 'string' ? input.name.trim() : input.name
  if (name === undefined) fail('required', 'name', 'name is required.')
  else if (typeof name !== 'string')
    fail('invalid_type', 'name', `name must be a string, not ${typeName(name)}.`)
  else if (name.length === 0) fail('too_short', 'name', 'name must not be empty.')
  else if (name.length > MAX_NAME) fail('too_long', 'name', `name must be at most ${MAX_NAME} characters.`)
  const enabled = input.enabled ?? true
  if (typeof enabled !== 'boolean') {
    fail('invalid_type', 'enabled', `enabled must be true or false, not ${typeName(enabled)}.`)
  }

  const conditions: Condition[] = []
  const rawConditions = input.conditions ?? []
  if (!Array.isArray(rawConditions)) {
    fail('invalid_type', 'conditions', `conditions must be an array, not ${typeName(rawConditions)}.`)
  } else if (rawConditions.length > MAX_CONDITIONS) {
    fail(
      'too_many',
      'conditions',
      `A rule has at most ${MAX_CONDITIONS} conditions (this one has ${rawConditions.length}).`,
    )
  } else {
    rawConditions.forEach((raw, n) => {
      const condition = checkCondition(raw, `conditions.${n}`, fail)
      if (condition) conditions.push(condition)
    })
  }

  const actions: Action[] = []
  const rawActions = input.actions
  if (rawActions === undefined) fail('required', 'actions', 'actions is required: a rule does 1 to 5 things.')
  else if (!Array.isArray(rawActions)) {
    fail('invalid_type', 'actions', `actions must be an array, not ${typeName(rawActions)}.`)
  } else if (rawActions.length === 0) fail('too_few', 'actions', 'A rule has at least one action.')
  else if (rawActions.length > MAX_ACTIONS) {
    fail(
      'too_many',
      'actions',
      `A rule has at most ${MAX_ACTIONS} actions (this one has ${rawActions.length}).`,
    )
  } else {
    rawActions.forEach((raw, n) => {
      const action = checkAction(raw, `actions.${n}`, fail)
      if (action) actions.push(action)
    })
  }
  if (errors.length > 0) return { errors }
  return { rule: { name: name as string, enabled: enabled as boolean, conditions, actions }, errors }
}

type Fail = (code: ValidationEntry['code'], field: string, message: string) => void

function checkCondition(raw: unknown, at: string, fail: Fail): Condition | undefined {
  if (!isObject(raw)) {
    fail('invalid_type', at, `${at} must be an object with field, operator and value, not ${typeName(raw)}.`)
    return undefined
  }
  for (const k of Object.keys(raw)) {
    if (!['field', 'operator', 'key', 'value'].includes(k)) {
      fail(
        'unknown_field',
        `${at}.${k}`,
        `${at}.${k} is not part of a condition (field, operator, key, value).`,
      )
    }
  }
  const field = raw.field
  if (typeof field !== 'string' || !Object.hasOwn(FIELDS, field)) {
    fail(
      field === undefined ? 'required' : 'invalid_format',
      `${at}.field`,
      `${at}.field must be one of ${oneOf(Object.keys(FIELDS))}.`,
    )
    return undefined
  }
  const definition: FieldDefinition = FIELDS[field as ConditionField]
  const operator = raw.operator
  if (typeof operator !== 'string' || !Object.hasOwn(definition.operators, operator)) {
    fail(
      operator === undefined ? 'required' : 'invalid_format',
      `${at}.operator`,
      `${at}.operator must be one of ${oneOf(Object.keys(definition.operators))} for ${field}.`,
    )
    return undefined
  }
  const condition: Condition = { field: field as ConditionField, operator }
  if (definition.key) {
    const key = raw.key
    if (typeof key !== 'string' || key.length === 0 || key.length > MAX_TEXT) {
      fail(
        key === undefined ? 'required' : 'invalid_type',
        `${at}.key`,
        `${at}.key must name the personalization field (1 to ${MAX_TEXT} characters).`,
      )
      return undefined
    }
    condition.key = key
  } else if (raw.key !== undefined) {
    fail('unknown_field', `${at}.key`, `${at}.key is only read by item.personalization.`)
    return undefined
  }
  const kind = definition.operators[operator]!.value
  const value = checkValue(kind, raw.value, `${at}.value`, fail)
  if (value === null) return undefined
  if (value !== undefined) condition.value = value
  return condition
}

/** The value as stored; undefined when the operator takes none; null when refused. */
function checkValue(
  kind: ValueKind,
  value: unknown,
  at: string,
  fail: Fail,
): ConditionValue | undefined | null {
  if (kind === 'none') {
    if (value === undefined) return undefined
    fail('unknown_field', at, `${at} is not read by this operator: leave it out.`)
    return null
  }
  if (value === undefined) {
    fail('required', at, `${at} is required for this operator.`)
    return null
  }
  switch (kind) {
    case 'text': {
      if (typeof value !== 'string') break
      const text = value.trim()
      if (text.length === 0 || text.length > MAX_TEXT) {
        fail(text.length === 0 ? 'too_short' : 'too_long', at, `${at} must be 1 to ${MAX_TEXT} characters.`)
        return null
      }
      return text
    }
    case 'number':
      if (typeof value !== 'number' || !Number.isFinite(value)) break
      return value
    case 'integer':
      if (typeof value !== 'number' || !Number.isInteger(value)) break
      if (value < 0 || value > 1_000_000_000) {
        fail(value < 0 ? 'too_small' : 'too_large', at, `${at} must be a whole number from 0 to 1000000000.`)
        return null
      }
      return value
    case 'texts': {
      if (!Array.isArray(value) || value.some((v) => typeof v !== 'string')) break
      const list = [...new Set((value as string[]).map((v) => v.trim()))]
      if (
        list.length === 0 ||
        list.length > MAX_LIST ||
        list.some((v) => v.length === 0 || v.length > MAX_TEXT)
      ) {
        fail('invalid_format', at, `${at} must list 1 to ${MAX_LIST} values of 1 to ${MAX_TEXT} characters.`)
        return null
      }
      return list
    }
    case 'currency':
      if (typeof value !== 'string') break
      if (!/^[A-Z]{3}$/.test(value)) {
        fail('invalid_format', at, `${at} must be a three-letter ISO 4217 code in capitals, such as EUR.`)
        return null
      }
      return value
    case 'source':
      if (typeof value !== 'string') break
      if (value !== 'api' && value !== 'shop') {
        fail('invalid_format', at, `${at} must be api or shop.`)
        return null
      }
      return value
  }
  const expected = {
    text: 'a string',
    number: 'a number',
    integer: 'a whole number',
    texts: 'an array of strings',
  }
  fail(
    'invalid_type',
    at,
    `${at} must be ${expected[kind as keyof typeof expected] ?? 'a string'}, not ${typeName(value)}.`,
  )
  return null
}

function checkAction(raw: unknown, at: string, fail: Fail): Action | undefined {
  if (!isObject(raw)) {
    fail('invalid_type', at, `${at} must be an object with a type, not ${typeName(raw)}.`)
    return undefined
  }
  const type = raw.type
  if (typeof type !== 'string' || !Object.hasOwn(ACTIONS, type)) {
    fail(
      type === undefined ? 'required' : 'invalid_format',
      `${at}.type`,
      `${at}.type must be one of ${oneOf(Object.keys(ACTIONS))}.`,
    )
    return undefined
  }
  for (const k of Object.keys(raw)) {
    const allowed = type === 'priority' || type === 'tag' ? ['type', 'value'] : ['type']
    if (!allowed.includes(k)) {
      fail('unknown_field', `${at}.${k}`, `${at}.${k} is not read by the ${type} action.`)
      return undefined
    }
  }
  if (type === 'priority') {
    if (raw.value !== 'rush' && raw.value !== 'normal') {
      fail(
        raw.value === undefined ? 'required' : 'invalid_format',
        `${at}.value`,
        `${at}.value must be rush or normal.`,
      )
      return undefined
    }
    return { type, value: raw.value }
  }
  if (type === 'tag') {
    const tag = typeof raw.value === 'string' ? raw.value.trim() : raw.value
    if (typeof tag !== 'string') {
      fail(
        tag === undefined ? 'required' : 'invalid_type',
        `${at}.value`,
        `${at}.value must be the tag, a string.`,
      )
      return undefined
    }
    if (!TAG.test(tag)) {
      fail(
        'invalid_format',
        `${at}.value`,
        `${at}.value must be 1 to ${MAX_TAG} letters, digits, spaces, hyphens or underscores.`,
      )
      return undefined
    }
    return { type, value: tag }
  }
  return { type: type as 'hold' | 'partner' }
}

const TAG = new RegExp(`^[\\p{L}\\p{N}][\\p{L}\\p{N} _-]{0,${MAX_TAG - 1}}$`, 'u')
