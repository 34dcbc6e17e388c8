import { Alert, Button, Fieldset, Group, NativeSelect, Stack, Switch, Text, TextInput } from '@mantine/core'
import { type FormEvent, type ReactNode, useState } from 'react'
import { ApiError, type AutomationRule } from '../../../lib/api.ts'
import { useDryRun, useSaveRule } from '../api/automation.ts'
import { ConditionRow } from './condition-row.tsx'
import { DryRunResult } from './dry-run-result.tsx'
import {
  type ActionDraft,
  bodyOfDraft,
  type Catalog,
  draftOf,
  emptyDraft,
  newAction,
  newCondition,
  type RuleDraft,
} from './rule-draft.ts'

/**
 * Create or edit a rule. The form offers only the service's fields, operators
 * and actions (GET /automation/fields); what the service still refuses comes
 * back naming the field, and is shown there (or above the buttons when no
 * input carries that name). A dry run tries the rule as edited, saved or not.
 */
export function RuleForm({
  catalog,
  rule,
  onDone,
}: {
  catalog: Catalog
  rule?: AutomationRule
  onDone: () => void
}) {
  const [draft, setDraft] = useState<RuleDraft>(() => (rule ? draftOf(rule) : emptyDraft(catalog)))
  const save = useSaveRule()
  const dryRun = useDryRun()
  // The latest answer decides which messages show: a later dry run clears a save's, and back.
  const [failure, setFailure] = useState<{ of: 'save' | 'dry run'; error: Error } | null>(null)
  const { limits } = catalog

  const errors = failure?.error instanceof ApiError ? failure.error.errors : []
  const error = (field: string) => {
    const found = errors.filter((e) => e.field === field)
    return found.length === 0 ? undefined : found.map((e) => e.message).join(' ')
  }
  // The names an input of this form shows its message under; the rest go to the alert.
  const placed = (field = '') => {
    const row = /^(conditions|actions)\.(\d+)\.(field|operator|key|value|type)$/.exec(field)
    if (row) return Number(row[2]) < draft[row[1] as 'conditions' | 'actions'].length
    return ['name', 'enabled', 'conditions', 'actions'].includes(field)
  }
  // A dry run's answer is about the rule as it was sent: an edit takes it away.
  const set = (patch: Partial<RuleDraft>) => {
    setDraft({ ...draft, ...patch })
    dryRun.reset()
  }
  const setAction = (n: number, a: ActionDraft) =>
    set({ actions: draft.actions.map((x, i) => (i === n ? a : x)) })

  const submit = (e: FormEvent) => {
    e.preventDefault()
    setFailure(null)
    save.mutate(
      { id: rule?.id, body: bodyOfDraft(catalog, draft) },
      { onSuccess: onDone, onError: (error) => setFailure({ of: 'save', error }) },
    )
  }
  const tryIt = () => {
    setFailure(null)
    dryRun.mutate(bodyOfDraft(catalog, draft), { onError: (error) => setFailure({ of: 'dry run', error }) })
  }

  const unplaced = errors.filter((e) => !placed(e.field))
  return (
    <form onSubmit={submit} noValidate>
      <Stack>
        <TextInput
          label="Name"
          required
          maxLength={100}
          value={draft.name}
          onChange={(e) => set({ name: e.currentTarget.value })}
          error={error('name')}
        />
        <Switch
          label="Enabled"
          checked={draft.enabled}
          onChange={(e) => set({ enabled: e.currentTarget.checked })}
          error={error('enabled')}
        />
        <Fieldset legend="Conditions (all must hold)">
          <Stack gap="md">
            <Text size="sm" c="dimmed">
              Item conditions hold together on one item. With no condition the rule acts on every live order.
            </Text>
            {draft.conditions.map((c, n) => (
              <ConditionRow
                // biome-ignore lint/suspicious/noArrayIndexKey: conditions are edited in place, in their order.
                key={n}
                catalog={catalog}
                n={n}
                condition={c}
                onChange={(next) => set({ conditions: draft.conditions.map((x, i) => (i === n ? next : x)) })}
                onRemove={() => set({ conditions: draft.conditions.filter((_, i) => i !== n) })}
                error={(part) => error(`conditions.${n}.${part}`)}
              />
            ))}
            <RowsFooter
              error={error('conditions')}
              count={draft.conditions.length}
              limit={limits.conditions}
              onAdd={() => set({ conditions: [...draft.conditions, newCondition(catalog)] })}
            >
              Add a condition
            </RowsFooter>
          </Stack>
        </Fieldset>
        <Fieldset legend="Actions">
          <Stack gap="md">
            {draft.actions.map((a, n) => (
              // biome-ignore lint/suspicious/noArrayIndexKey: actions are edited in place, in their order.
              <Group key={n} align="flex-start" gap="sm" role="group" aria-label={`Action ${n + 1}`}>
                <NativeSelect
                  label={`Action ${n + 1}`}
                  value={a.type}
                  onChange={(e) => setAction(n, newAction(catalog, e.currentTarget.value))}
                  data={catalog.actions.map((d) => ({ value: d.type, label: d.label }))}
                  error={error(`actions.${n}.type`)}
                  w={{ base: '100%', sm: 220 }}
                />
                <ActionValue
                  kind={catalog.actions.find((d) => d.type === a.type)?.value ?? 'none'}
                  n={n}
                  action={a}
                  onChange={(value) => setAction(n, { ...a, value })}
                  error={error(`actions.${n}.value`)}
                />
                <Button
                  variant="default"
                  mt={{ base: 0, sm: 25 }}
                  disabled={draft.actions.length <= 1}
                  onClick={() => set({ actions: draft.actions.filter((_, i) => i !== n) })}
                >
                  Remove action {n + 1}
                </Button>
              </Group>
            ))}
            <RowsFooter
              error={error('actions')}
              count={draft.actions.length}
              limit={limits.actions}
              onAdd={() => set({ actions: [...draft.actions, newAction(catalog)] })}
            >
              Add an action
            </RowsFooter>
          </Stack>
        </Fieldset>
        {failure !== null && (
          <Alert
            color="red"
            variant="default"
            role="alert"
            title={failure.of === 'save' ? 'The rule was not saved' : 'The dry run was refused'}
          >
            {unplaced.length > 0
              ? unplaced.map((e) => e.message).join(' ')
              : errors.length > 0
                ? 'See the fields marked above.'
                : failure.error.message}
          </Alert>
        )}
        {dryRun.data && !dryRun.isPending && failure === null && <DryRunResult result={dryRun.data} />}
        <Group justify="flex-end">
          <Button variant="default" onClick={onDone}>
            Cancel
          </Button>
          <Button variant="default" loading={dryRun.isPending} onClick={tryIt}>
            Dry run
          </Button>
          <Button type="submit" loading={save.isPending}>
            Save rule
          </Button>
        </Group>
      </Stack>
    </form>
  )
}

/**
 * Under a fieldset's rows (conditions, actions): the service's message about
 * the rows as a whole, and the button that adds one while fewer than `limit`.
 */
function RowsFooter({
  error,
  count,
  limit,
  onAdd,
  children,
}: {
  error: string | undefined
  count: number
  limit: number
  onAdd: () => void
  children: ReactNode
}) {
  return (
    <>
      {error && (
        <Text c="red.8" size="sm">
          {error}
        </Text>
      )}
      <Group>
        <Button variant="default" size="xs" disabled={count >= limit} onClick={onAdd}>
          {children}
        </Button>
        <Text size="xs" c="dimmed">
          {count} of at most {limit}
        </Text>
      </Group>
    </>
  )
}

function ActionValue({
  kind,
  n,
  action,
  onChange,
  error,
}: {
  kind: string
  n: number
  action: ActionDraft
  onChange: (value: string) => void
  error: string | undefined
}) {
  if (kind === 'priority') {
    return (
      <NativeSelect
        label={`Action ${n + 1} priority`}
        value={action.value}
        onChange={(e) => onChange(e.currentTarget.value)}
        data={[
          { value: 'rush', label: 'Rush' },
          { value: 'normal', label: 'Normal' },
        ]}
        error={error}
        w={{ base: '100%', sm: 160 }}
      />
    )
  }
  if (kind === 'tag') {
    return (
      <TextInput
        label={`Action ${n + 1} tag`}
        maxLength={40}
        value={action.value}
        onChange={(e) => onChange(e.currentTarget.value)}
        error={error}
        w={{ base: '100%', sm: 200 }}
      />
    )
  }
  return null
}
