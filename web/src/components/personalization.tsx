import { Paper, Table, Text, Title } from '@mantine/core'
import { useStacked } from './data-table.tsx'

/** A personalization value as typed: strings as they are, anything else as JSON. */
export const fieldValue = (v: unknown) => (typeof v === 'string' ? v : JSON.stringify(v))

/**
 * An item's personalization fields, as a table of field and value; on a
 * phone a list of the fields, each name above its value.
 */
export function Personalization({ position, values }: { position: number; values: Record<string, unknown> }) {
  const fields = Object.entries(values)
  const stacked = useStacked()
  const label = `Personalization of item ${position}`
  return (
    <>
      <Title order={4} size="h5">
        Personalization
      </Title>
      {fields.length === 0 ? (
        <Text c="dimmed">No personalization.</Text>
      ) : stacked ? (
        <Paper withBorder p="sm" radius="md" role="group" aria-label={label}>
          <dl style={{ margin: 0, display: 'grid', gap: 8 }}>
            {fields.map(([k, v]) => (
              <div key={k}>
                <Text component="dt" size="sm" c="dimmed" style={{ overflowWrap: 'anywhere' }}>
                  {k}
                </Text>
                <Text
                  component="dd"
                  m={0}
                  size="sm"
                  style={{ overflowWrap: 'anywhere', whiteSpace: 'pre-wrap' }}
                >
                  {fieldValue(v)}
                </Text>
              </div>
            ))}
          </dl>
        </Paper>
      ) : (
        <Table withTableBorder aria-label={label} maw={720}>
          <Table.Thead>
            <Table.Tr>
              <Table.Th w="30%">Field</Table.Th>
              <Table.Th>Value</Table.Th>
            </Table.Tr>
          </Table.Thead>
          <Table.Tbody>
            {fields.map(([k, v]) => (
              <Table.Tr key={k}>
                <Table.Td style={{ overflowWrap: 'anywhere' }}>{k}</Table.Td>
                <Table.Td style={{ overflowWrap: 'anywhere', whiteSpace: 'pre-wrap' }}>
                  {fieldValue(v)}
                </Table.Td>
              </Table.Tr>
            ))}
          </Table.Tbody>
        </Table>
      )}
    </>
  )
}
