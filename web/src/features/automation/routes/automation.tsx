import { Alert, Button, Group, Loader, Modal, Text } from '@mantine/core'
import { useMediaQuery } from '@mantine/hooks'
import { useState } from 'react'
import { ErrorAlert } from '../../../components/error-alert.tsx'
import { Page } from '../../../components/page.tsx'
import type { AutomationRule } from '../../../lib/api.ts'
import { useSession } from '../../auth/api/session.ts'
import { useCatalog, useRules } from '../api/automation.ts'
import { RuleForm } from '../components/rule-form.tsx'
import { RuleList } from '../components/rule-list.tsx'

/** /automation: everyone reads the rules; owners and developers change them. */
export function AutomationRoute() {
  const me = useSession().data!
  const canEdit = me.role !== 'viewer'
  const rules = useRules()
  const catalog = useCatalog()
  const narrow = useMediaQuery('(max-width: 48em)')
  // What the form edits ('new': a new rule), kept while the dialog closes so its title stays;
  // `opened` counts the openings, so that each one starts a fresh form.
  const [editing, setEditing] = useState<AutomationRule | 'new'>('new')
  const [open, setOpen] = useState(false)
  const [opened, setOpened] = useState(0)
  const edit = (rule: AutomationRule | 'new') => {
    setEditing(rule)
    setOpened(opened + 1)
    setOpen(true)
  }

  const list = rules.data?.rules ?? []
  const full = rules.data !== undefined && list.length >= rules.data.max_rules
  return (
    <Page
      title="Automation"
      lead="Rules act on live orders as they arrive, in the order listed: hold an order for review, send it to a partner, rush it, or tag it."
    >
      <Alert variant="default" color="blue" title="When rules apply">
        <Text size="sm">
          A rule change applies to orders arriving afterwards; orders already accepted keep what the rules did
          to them.
        </Text>
        <Text size="sm">Rules run for live orders only.</Text>
      </Alert>
      {canEdit && (
        <Group>
          <Button onClick={() => edit('new')} disabled={full || !catalog.data}>
            New rule
          </Button>
          {full && (
            <Text size="sm" c="dimmed">
              An organization has at most {rules.data?.max_rules} rules: change or delete one instead.
            </Text>
          )}
        </Group>
      )}
      <ErrorAlert error={rules.error ?? catalog.error} />
      {rules.isPending ? (
        <Loader aria-label="Loading rules" />
      ) : (
        <RuleList rules={list} catalog={catalog.data} onEdit={canEdit ? edit : undefined} />
      )}
      {catalog.data && (
        <Modal
          opened={open}
          onClose={() => setOpen(false)}
          title={editing === 'new' ? 'New rule' : `Edit rule: ${editing.name}`}
          size="70rem"
          fullScreen={narrow}
          closeButtonProps={{ 'aria-label': 'Close' }}
        >
          <RuleForm
            key={opened}
            catalog={catalog.data}
            rule={editing === 'new' ? undefined : editing}
            onDone={() => setOpen(false)}
          />
        </Modal>
      )}
    </Page>
  )
}
