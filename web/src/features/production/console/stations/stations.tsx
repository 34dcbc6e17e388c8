import { Anchor, Button, Group, Loader, Modal, Paper, Stack, Text, TextInput } from '@mantine/core'
import { type FormEvent, useState } from 'react'
import { Link } from 'react-router'
import { ConfirmModal } from '../../../../components/confirm-modal.tsx'
import { DataCell, DataRow, DataTable } from '../../../../components/data-table.tsx'
import { ErrorAlert, RefusalAlert } from '../../../../components/error-alert.tsx'
import { Page } from '../../../../components/page.tsx'
import { Time } from '../../../../components/time.tsx'
import { checkLength } from '../../../../lib/field-errors.ts'
import { STATION_LIMITS } from '../../../../lib/limits.ts'
import { useFieldMessages } from '../../../../lib/use-field-messages.ts'
import {
  lastStation,
  rememberStation,
  type Station,
  useCreateStation,
  useRemoveStation,
  useRenameStation,
  useStations,
} from '../api/stations.ts'

const LABELS = { name: 'Name' }
/** A name taken (in any case) is a conflict about the name. */
const BY_CODE = { production_conflict: 'name' }

/** A station's name, typed: for a new station or a new name. */
function NameForm({
  initial,
  submitLabel,
  busy,
  error,
  onSubmit,
  onCancel,
}: {
  initial: string
  submitLabel: string
  busy: boolean
  error: unknown
  onSubmit: (name: string) => void
  onCancel?: () => void
}) {
  const [name, setName] = useState(initial)
  const messages = useFieldMessages(error, LABELS, BY_CODE)
  const submit = (e: FormEvent) => {
    e.preventDefault()
    if (messages.check({ name: checkLength('Name', name.trim(), STATION_LIMITS.name) })) onSubmit(name.trim())
  }
  return (
    <form onSubmit={submit} noValidate>
      <Stack gap="sm">
        <Group align="flex-end" gap="sm">
          <TextInput
            label="Name"
            description='For example "Press 2" or "Packing"; unique'
            withAsterisk
            maxLength={STATION_LIMITS.name.max}
            value={name}
            error={messages.message('name')}
            onChange={(e) => {
              setName(e.currentTarget.value)
              messages.changed('name')
            }}
            style={{ flex: 1, minWidth: 200 }}
            data-autofocus
          />
          <Button type="submit" loading={busy}>
            {submitLabel}
          </Button>
          {onCancel && (
            <Button variant="default" onClick={onCancel}>
              Cancel
            </Button>
          )}
        </Group>
        <RefusalAlert refusal={messages.refusal} title="Nothing was saved" />
      </Stack>
    </form>
  )
}

function AddStation() {
  const create = useCreateStation()
  // A new form after each station added, so the field starts empty.
  const [round, setRound] = useState(0)
  return (
    <Paper withBorder p="lg" radius="md" component="section" aria-label="Add a station">
      <NameForm
        key={round}
        initial=""
        submitLabel="Add station"
        busy={create.isPending}
        error={create.error}
        onSubmit={(name) => create.mutate(name, { onSuccess: () => setRound((r) => r + 1) })}
      />
      {create.data && (
        <Text size="sm" mt="xs" role="status">
          Added {create.data.name}:{' '}
          <Anchor component={Link} to={`/operator/stations/${create.data.id}`}>
            open its station page
          </Anchor>
          .
        </Text>
      )}
    </Paper>
  )
}

function RenameDialog({ station, onClose }: { station: Station; onClose: () => void }) {
  const rename = useRenameStation()
  return (
    <Modal
      opened
      onClose={onClose}
      title={`Rename ${station.name}`}
      closeButtonProps={{ 'aria-label': 'Close' }}
    >
      <Stack gap="sm">
        <Text size="sm">What was done there keeps the name it was done under in the audit log.</Text>
        <NameForm
          initial={station.name}
          submitLabel="Rename"
          busy={rename.isPending}
          error={rename.error}
          onSubmit={(name) => rename.mutate({ id: station.id, name }, { onSuccess: onClose })}
          onCancel={onClose}
        />
      </Stack>
    </Modal>
  )
}

/** /operator/stations: the floor's named places, each opening its station page (for a tablet or a scanner's PC). */
export function StationsRoute() {
  const stations = useStations()
  const remove = useRemoveStation()
  const [renaming, setRenaming] = useState<Station | null>(null)
  const [removing, setRemoving] = useState<Station | null>(null)
  const rows = stations.data ?? []
  const saved = lastStation()
  const last = saved && rows.find((s) => s.id === saved.id)
  return (
    <Page
      title="Stations"
      lead="The floor's named places, such as a press or the packing table. Open a station's page on the tablet or computer there: its scanner opens job sheets and batch sheets, and each action taken there records the station and the operator in the audit log and on the order's timeline."
    >
      {last && (
        <Group>
          <Button component={Link} to={`/operator/stations/${last.id}`} size="lg">
            Continue at {last.name}
          </Button>
        </Group>
      )}
      <AddStation />
      <ErrorAlert error={stations.error} />
      <ErrorAlert error={remove.error} title="The station was not removed" />
      {stations.isPending ? (
        <Loader aria-label="Loading the stations" />
      ) : rows.length === 0 ? (
        <Text c="dimmed">No station yet: add one above.</Text>
      ) : (
        <DataTable label="Stations, by name" caption columns={['Name', 'Added', 'Change']}>
          {rows.map((s) => (
            <DataRow key={s.id}>
              <DataCell label="Name" rowHeader>
                <Anchor
                  component={Link}
                  to={`/operator/stations/${s.id}`}
                  fw={600}
                  size="sm"
                  aria-label={`Open station ${s.name}`}
                >
                  {s.name}
                </Anchor>
              </DataCell>
              <DataCell label="Added">
                <Time value={s.created_at} exact />
              </DataCell>
              <DataCell label="Change" hideLabel>
                <Group gap={6}>
                  <Button
                    size="xs"
                    variant="default"
                    aria-label={`Rename ${s.name}`}
                    onClick={() => setRenaming(s)}
                  >
                    Rename
                  </Button>
                  <Button
                    size="xs"
                    variant="default"
                    color="red"
                    aria-label={`Remove ${s.name}`}
                    onClick={() => {
                      remove.reset()
                      setRemoving(s)
                    }}
                  >
                    Remove
                  </Button>
                </Group>
              </DataCell>
            </DataRow>
          ))}
        </DataTable>
      )}
      {renaming && <RenameDialog station={renaming} onClose={() => setRenaming(null)} />}
      <ConfirmModal
        opened={removing !== null}
        title={`Remove ${removing?.name ?? 'the station'}?`}
        onCancel={() => setRemoving(null)}
        cancelLabel="Keep the station"
        confirmLabel="Remove the station"
        busy={remove.isPending}
        onConfirm={() =>
          removing &&
          remove.mutate(removing.id, {
            onSuccess: (gone) => {
              if (lastStation()?.id === gone.id) rememberStation(null)
            },
            onSettled: () => setRemoving(null),
          })
        }
      >
        The station leaves the floor: its page no longer takes scans or actions. What was done there keeps its
        name in the audit log. Nobody else is told. This cannot be undone.
      </ConfirmModal>
    </Page>
  )
}
