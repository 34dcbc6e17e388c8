import { Button, Group, Paper, Stack, Switch, Text, Title } from '@mantine/core'
import { useState } from 'react'
import { ConfirmModal } from '../../../components/confirm-modal.tsx'
import { ErrorAlert } from '../../../components/error-alert.tsx'
import { StatusBadge } from '../../../components/status-badge.tsx'
import type { AutomationRule } from '../../../lib/api.ts'
import { bodyOf, useDeleteRule, useReorderRules, useSaveRule } from '../api/automation.ts'
import { describeActions } from './rule-actions.ts'
import type { Catalog } from './rule-draft.ts'

/**
 * The rules in the order they run. `onEdit` set: the member may change them
 * (switch, move, edit, delete); without it the list only reads.
 */
export function RuleList({
  rules,
  catalog,
  onEdit,
}: {
  rules: AutomationRule[]
  catalog: Catalog | undefined
  onEdit?: (rule: AutomationRule) => void
}) {
  const toggle = useSaveRule()
  const reorder = useReorderRules()
  const remove = useDeleteRule()
  const [deleting, setDeleting] = useState<AutomationRule | null>(null)

  const move = (from: number, to: number) => {
    const ids = rules.map((r) => r.id)
    ;[ids[from], ids[to]] = [ids[to]!, ids[from]!]
    reorder.mutate(ids)
  }
  if (rules.length === 0) {
    return <Text c="dimmed">No rules yet: every live order is accepted as it arrives.</Text>
  }
  return (
    <>
      <ErrorAlert error={toggle.error ?? reorder.error ?? remove.error} title="The change was refused" />
      <Stack
        component="ol"
        gap="sm"
        p={0}
        m={0}
        style={{ listStyle: 'none' }}
        aria-label="Rules in run order"
      >
        {rules.map((rule, n) => (
          <Paper
            key={rule.id}
            component="li"
            withBorder
            p="md"
            radius="md"
            aria-labelledby={`rule-${rule.id}`}
          >
            <Group justify="space-between" align="flex-start" gap="xs">
              <Title order={2} size="h4" id={`rule-${rule.id}`}>
                {rule.position}. {rule.name}
              </Title>
              {onEdit ? (
                <Switch
                  label="Enabled"
                  checked={rule.enabled}
                  disabled={toggle.isPending}
                  onChange={() =>
                    toggle.mutate({ id: rule.id, body: { ...bodyOf(rule), enabled: !rule.enabled } })
                  }
                />
              ) : (
                <StatusBadge color={rule.enabled ? 'green' : 'gray'}>
                  {rule.enabled ? 'Enabled' : 'Disabled'}
                </StatusBadge>
              )}
            </Group>
            <Text size="sm" mt="xs">
              <Text span fw={600}>
                When:{' '}
              </Text>
              {rule.description}
            </Text>
            <Text size="sm">
              <Text span fw={600}>
                Then:{' '}
              </Text>
              {describeActions(rule.actions, catalog)}
            </Text>
            {onEdit && (
              <Group gap="xs" mt="sm">
                <Button
                  size="xs"
                  variant="default"
                  disabled={n === 0 || reorder.isPending}
                  onClick={() => move(n, n - 1)}
                >
                  Move up
                </Button>
                <Button
                  size="xs"
                  variant="default"
                  disabled={n === rules.length - 1 || reorder.isPending}
                  onClick={() => move(n, n + 1)}
                >
                  Move down
                </Button>
                <Button size="xs" variant="default" onClick={() => onEdit(rule)}>
                  Edit
                </Button>
                <Button size="xs" variant="default" color="red.9" onClick={() => setDeleting(rule)}>
                  Delete
                </Button>
              </Group>
            )}
          </Paper>
        ))}
      </Stack>
      <ConfirmModal
        opened={deleting !== null}
        title={`Delete the rule "${deleting?.name ?? ''}"?`}
        onCancel={() => setDeleting(null)}
        confirmLabel="Delete rule"
        busy={remove.isPending}
        onConfirm={() => remove.mutate(deleting!.id, { onSuccess: () => setDeleting(null) })}
      >
        It stops acting on orders arriving from now on; orders it already acted on keep what it did. The rules
        after it move up. No one is notified; the deletion is in the audit log.
      </ConfirmModal>
    </>
  )
}
