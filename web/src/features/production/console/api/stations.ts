import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query'
import { type Answer, call, client } from '../../../../lib/api.ts'
import { readSavedStation } from '../../lib/station-words.ts'

/** The console's stations (/dashboard/api/operator/stations...): named places on the floor, and their scans. */
export type Station = Answer<'/operator/stations'>['data'][number]
export type Scanned = Answer<'/operator/stations/{station_id}/scan', 'post'>['data']
/** The production order a scan opened (or whose item it completed): its page without the history. */
export type ScannedOrder = NonNullable<Scanned['production_order']>

/** The stations, by name. */
export function useStations() {
  return useQuery({
    queryKey: ['operator', 'stations'],
    queryFn: () => call(client.GET('/operator/stations')).then((r) => r.data),
  })
}

/** One station (404 once removed). */
export function useStation(id: string, enabled = true) {
  return useQuery({
    queryKey: ['operator', 'station', id],
    queryFn: () =>
      call(client.GET('/operator/stations/{station_id}', { params: { path: { station_id: id } } })).then(
        (r) => r.data.station,
      ),
    retry: false,
    enabled,
  })
}

function useRefresh() {
  const queryClient = useQueryClient()
  return () =>
    Promise.all(
      ['stations', 'station'].map((key) => queryClient.invalidateQueries({ queryKey: ['operator', key] })),
    )
}

/** A new station, by its name (unique in any case). */
export function useCreateStation() {
  const refresh = useRefresh()
  return useMutation({
    mutationFn: (name: string) =>
      call(client.POST('/operator/stations', { body: { name } })).then((r) => r.data.station),
    onSettled: refresh,
  })
}

/** A station's new name. */
export function useRenameStation() {
  const refresh = useRefresh()
  return useMutation({
    mutationFn: ({ id, name }: { id: string; name: string }) =>
      call(
        client.PATCH('/operator/stations/{station_id}', {
          params: { path: { station_id: id } },
          body: { name },
        }),
      ).then((r) => r.data.station),
    onSettled: refresh,
  })
}

/** A station leaves the floor (the audit log keeps its name on what was done there). */
export function useRemoveStation() {
  const refresh = useRefresh()
  return useMutation({
    mutationFn: (id: string) =>
      call(client.DELETE('/operator/stations/{station_id}', { params: { path: { station_id: id } } })).then(
        (r) => r.data.station,
      ),
    onSettled: refresh,
  })
}

/** What the scanner read at a station: opens a sheet's order or batch, or completes an item's job. */
export function useScan(stationId: string) {
  const queryClient = useQueryClient()
  return useMutation({
    mutationFn: (code: string) =>
      call(
        client.POST('/operator/stations/{station_id}/scan', {
          params: { path: { station_id: stationId } },
          body: { code },
        }),
      ).then((r) => r.data),
    // What a scan opens is read fresh; a completed item moves the board too.
    onSuccess: (scanned) =>
      Promise.all(
        (scanned.kind === 'job' ? ['board', 'production-order', 'batch'] : ['production-order', 'batch']).map(
          (key) => queryClient.invalidateQueries({ queryKey: ['operator', key] }),
        ),
      ),
  })
}

/** Where this browser keeps its station (a tablet at a press stays at that press). */
const LAST_STATION = 'order-intake.last-station'

/** The station this browser last worked at, offered on the Stations page. */
export function lastStation(): { id: string; name: string } | null {
  try {
    return readSavedStation(localStorage.getItem(LAST_STATION))
  } catch {
    return null
  }
}

/** Remembers the station this browser works at (null: forgets it, once removed). */
export function rememberStation(station: { id: string; name: string } | null): void {
  try {
    if (station) localStorage.setItem(LAST_STATION, JSON.stringify({ id: station.id, name: station.name }))
    else localStorage.removeItem(LAST_STATION)
  } catch {}
}
