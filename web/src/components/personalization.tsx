import { Table, Text, Title } from '@mantine/core'

/** A personalization value as typed: strings as they are, anything else as JSON. */
export const fieldValue = (v: unknown) => (typeof v === 'string' ? v : JSON.stringify(v))

/** An item's personalization fields, as a table of field and value. */
export function Personalization({ position, values }: { position: number; values: Record<string, unknown> }) {
  const fields = Object.entries(values)
  return (
    <>
      <Title order={4} size="h5">
        Personalization
      </Title>
      {fields.length === 0 ? (
        <Text c="dimmed">No personalization.</Text>
      ) : (
        <Table withTableBorder aria-label={`Personalization of item ${position}`} maw={720}>
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
