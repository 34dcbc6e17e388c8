import { Button, Group, NativeSelect, NumberInput, TagsInput, TextInput } from '@mantine/core'
import { type Catalog, type ConditionDraft, fieldOf, newCondition, valueKind } from './rule-draft.ts'

/** The first value of a kind: a closed set starts on its first member, the rest empty. */
const startValue = (kind: string) => (kind === 'source' ? 'api' : '')

/**
 * One condition: field, then that field's operators, then the input its
 * value kind needs (a personalization field also names its key). `error`
 * gives the service's message for each part, by the name it uses.
 */
export function ConditionRow({
  catalog,
  n,
  condition,
  onChange,
  onRemove,
  error,
}: {
  catalog: Catalog
  n: number
  condition: ConditionDraft
  onChange: (c: ConditionDraft) => void
  onRemove: () => void
  error: (part: string) => string | undefined
}) {
  const field = fieldOf(catalog, condition.field)
  const kind = valueKind(catalog, condition)
  const label = `Condition ${n + 1}`
  const setField = (name: string) => {
    const next = newCondition(catalog, name)
    onChange({ ...next, key: condition.key, value: startValue(valueKind(catalog, next)) })
  }
  const setOperator = (operator: string) => {
    const nextKind = valueKind(catalog, { field: condition.field, operator })
    onChange(
      nextKind === kind
        ? { ...condition, operator }
        : { ...condition, operator, value: startValue(nextKind), list: [] },
    )
  }
  const set = (patch: Partial<ConditionDraft>) => onChange({ ...condition, ...patch })

  return (
    <Group align="flex-start" gap="sm" role="group" aria-label={label}>
      <NativeSelect
        label={`${label} field`}
        value={condition.field}
        onChange={(e) => setField(e.currentTarget.value)}
        data={catalog.fields.map((f) => ({ value: f.field, label: f.label }))}
        error={error('field')}
        w={{ base: '100%', sm: 220 }}
      />
      {field?.key && (
        <TextInput
          label={`${label} personalization field`}
          placeholder="engraving"
          value={condition.key}
          onChange={(e) => set({ key: e.currentTarget.value })}
          error={error('key')}
          w={{ base: '100%', sm: 160 }}
        />
      )}
      <NativeSelect
        label={`${label} operator`}
        value={condition.operator}
        onChange={(e) => setOperator(e.currentTarget.value)}
        data={(field?.operators ?? []).map((o) => ({ value: o.operator, label: o.label }))}
        error={error('operator')}
        w={{ base: '100%', sm: 220 }}
      />
      <ValueInput
        label={`${label} value`}
        kind={kind}
        condition={condition}
        set={set}
        error={error('value')}
      />
      <Button variant="default" mt={{ base: 0, sm: 25 }} onClick={onRemove}>
        Remove condition {n + 1}
      </Button>
    </Group>
  )
}

function ValueInput({
  label,
  kind,
  condition,
  set,
  error,
}: {
  label: string
  kind: string
  condition: ConditionDraft
  set: (patch: Partial<ConditionDraft>) => void
  error: string | undefined
}) {
  const w = { base: '100%', sm: 220 }
  switch (kind) {
    case 'none':
      return null
    case 'number':
    case 'integer':
      return (
        <NumberInput
          label={label}
          placeholder={kind === 'integer' ? 'A whole number' : 'A number'}
          value={condition.value}
          onChange={(value) => set({ value })}
          allowDecimal={kind === 'number'}
          allowNegative={kind === 'number'}
          error={error}
          w={w}
        />
      )
    case 'texts':
      return (
        <TagsInput
          label={label}
          description="Press Enter or type a comma after each value"
          value={condition.list}
          onChange={(list) => set({ list })}
          error={error}
          w={w}
        />
      )
    case 'currency':
      return (
        <TextInput
          label={label}
          description="A currency code, such as EUR"
          maxLength={3}
          value={condition.value}
          onChange={(e) => set({ value: e.currentTarget.value.toUpperCase() })}
          error={error}
          w={w}
        />
      )
    case 'source':
      return (
        <NativeSelect
          label={label}
          value={String(condition.value)}
          onChange={(e) => set({ value: e.currentTarget.value })}
          data={[
            { value: 'api', label: 'API (/v1)' },
            { value: 'shop', label: 'Shop' },
          ]}
          error={error}
          w={w}
        />
      )
    default:
      return (
        <TextInput
          label={label}
          value={condition.value}
          onChange={(e) => set({ value: e.currentTarget.value })}
          error={error}
          w={w}
        />
      )
  }
}
