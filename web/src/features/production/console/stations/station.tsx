import {
  Anchor,
  Box,
  Button,
  Container,
  createTheme,
  Group,
  Loader,
  MantineThemeProvider,
  Modal,
  Paper,
  Stack,
  Text,
  TextInput,
  Title,
} from '@mantine/core'
import { type FormEvent, useEffect, useRef, useState } from 'react'
import { Link, Navigate, useParams } from 'react-router'
import { ErrorAlert } from '../../../../components/error-alert.tsx'
import { STATION_LIMITS } from '../../../../lib/limits.ts'
import { useAccount } from '../../../auth/api/session.ts'
import { type Said, scanRefusalWords, scanWords } from '../../lib/station-words.ts'
import { useBatch } from '../api/batches.ts'
import { useProductionOrder } from '../api/production.ts'
import {
  lastStation,
  rememberStation,
  type Scanned,
  type Station,
  useScan,
  useStation,
} from '../api/stations.ts'
import { StationBatch } from './station-batch.tsx'
import { StationOrder } from './station-order.tsx'
import { useScanFocus } from './use-scan-focus.ts'

/** Dialogs at a station hand focus back to the scan field (useScanFocus), not to the button that opened them. */
const STATION_THEME = createTheme({
  components: { Modal: Modal.extend({ defaultProps: { returnFocus: false } }) },
})

const TONE_COLOR: Record<Said['tone'], string> = { opened: 'blue', done: 'green', refused: 'red' }

/** What just happened, in large text, announced as it changes (the region is always there, so it is heard). */
function WhatHappened({ said }: { said: Said | null }) {
  return (
    <Paper
      withBorder
      p="md"
      radius="md"
      role="status"
      aria-live="polite"
      aria-atomic="true"
      style={
        said ? { borderColor: `var(--mantine-color-${TONE_COLOR[said.tone]}-6)`, borderWidth: 3 } : undefined
      }
    >
      {said ? (
        <>
          <Text
            fz={{ base: 22, sm: 28 }}
            fw={700}
            lh={1.25}
            c={said.tone === 'refused' ? 'red.9' : undefined}
          >
            {said.headline}
          </Text>
          {said.detail && (
            <Text size="lg" mt={4}>
              {said.detail}
            </Text>
          )}
        </>
      ) : (
        <Text fz={{ base: 20, sm: 24 }} c="dimmed">
          Ready: scan a job sheet, a batch sheet or an item's line.
        </Text>
      )}
    </Paper>
  )
}

/** What the last scan opened, kept fresh (polled, and read again after each action). */
function Opened({
  scanned,
  stationId,
  onSaid,
}: {
  scanned: Scanned
  stationId: string
  onSaid: (said: Said) => void
}) {
  const batchId = scanned.batch?.batch.id ?? ''
  const orderId = scanned.batch ? '' : (scanned.production_order?.production_order.id ?? '')
  const order = useProductionOrder(orderId, { enabled: orderId !== '' })
  const batch = useBatch(batchId, { enabled: batchId !== '' })
  if (scanned.batch) {
    return <StationBatch detail={batch.data ?? scanned.batch} stationId={stationId} onSaid={onSaid} />
  }
  const sheet = order.data ?? scanned.production_order
  return sheet ? <StationOrder sheet={sheet} stationId={stationId} onSaid={onSaid} /> : null
}

function StationFloor({ station, operator }: { station: Station; operator: string }) {
  const field = useRef<HTMLInputElement>(null)
  const [code, setCode] = useState('')
  const [said, setSaid] = useState<Said | null>(null)
  const [opened, setOpened] = useState<Scanned | null>(null)
  const scan = useScan(station.id)
  useScanFocus(field)

  useEffect(() => {
    document.title = `${station.name} · Station · Dashboard`
    rememberStation(station)
  }, [station])

  const submit = (e: FormEvent) => {
    e.preventDefault()
    const text = code.trim()
    if (!text) return
    setCode('')
    // Each scan's own answer, even when the next is scanned before it came.
    scan.mutateAsync(text.slice(0, STATION_LIMITS.code.max)).then(
      (scanned) => {
        setSaid(scanWords(scanned))
        setOpened(scanned)
      },
      (error: unknown) => setSaid(scanRefusalWords(error, text)),
    )
  }

  return (
    <Container size="md" px={{ base: 'sm', sm: 'lg' }} py="md">
      <Stack gap="md">
        <Group component="header" justify="space-between" align="flex-start" gap="sm">
          <div>
            <Title order={1} size="h2" style={{ overflowWrap: 'anywhere' }}>
              Station {station.name}
            </Title>
            <Text size="sm">Signed in as {operator}</Text>
          </div>
          <Group gap="md">
            <Anchor component={Link} to="/operator/stations">
              All stations
            </Anchor>
            <Anchor component={Link} to="/operator/production">
              Production board
            </Anchor>
          </Group>
        </Group>
        <form onSubmit={submit} noValidate aria-label="Scan">
          <Group align="flex-end" gap="sm" wrap="nowrap">
            <TextInput
              ref={field}
              label="Scan a code"
              description="A scanner types the code and Enter; a code can be typed too."
              size="xl"
              autoFocus
              autoComplete="off"
              autoCapitalize="off"
              spellCheck={false}
              maxLength={STATION_LIMITS.code.max}
              value={code}
              onChange={(e) => setCode(e.currentTarget.value)}
              style={{ flex: 1, minWidth: 0 }}
            />
            <Button type="submit" size="xl" loading={scan.isPending}>
              Open
            </Button>
          </Group>
        </form>
        <WhatHappened said={said} />
        {opened && (
          <Opened
            key={opened.batch?.batch.id ?? opened.production_order?.production_order.id}
            scanned={opened}
            stationId={station.id}
            onSaid={setSaid}
          />
        )}
      </Stack>
    </Container>
  )
}

/**
 * /operator/stations/:stationId: a station's page for the tablet or the
 * scanner's computer at it, outside the shell (the whole screen for the scan
 * field, what happened and the actions).
 */
export function StationRoute() {
  const { stationId = '' } = useParams()
  const account = useAccount()
  const isOperator = !!account.data?.operator
  const station = useStation(stationId, isOperator)

  useEffect(() => {
    if (station.error && lastStation()?.id === stationId) rememberStation(null)
  }, [station.error, stationId])

  if (account.isPending) return <Loader aria-label="Loading" m="xl" />
  if (!account.data) return <Navigate to="/sign-in" replace />
  if (!isOperator) return <Navigate to="/home" replace />
  return (
    <MantineThemeProvider theme={STATION_THEME}>
      <Box component="main">
        {station.data ? (
          <StationFloor station={station.data} operator={account.data.operator?.email ?? ''} />
        ) : station.isPending ? (
          <Loader aria-label="Loading the station" m="xl" />
        ) : (
          <Container size="md" py="md">
            <Stack>
              <Title order={1} size="h2">
                Station
              </Title>
              <ErrorAlert error={station.error} title="This station cannot be shown" />
              <Anchor component={Link} to="/operator/stations">
                Choose a station
              </Anchor>
            </Stack>
          </Container>
        )}
      </Box>
    </MantineThemeProvider>
  )
}
