import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query'
import { type Answer, call, client, type Input } from '../../../../lib/api.ts'

/** The production calendar's calls and the late and due-today counts (/dashboard/api/operator/production...). */
export type ProductionCalendar = Answer<'/operator/production-calendar'>['data']
export type CalendarInput = Input<'/operator/production-calendar', 'put'>
export type CalendarSaved = Answer<'/operator/production-calendar', 'put'>['data']
export type DueCounts = Answer<'/operator/production/due'>['data']

const CALENDAR_KEY = ['operator', 'production-calendar'] as const

export function useProductionCalendar() {
  return useQuery({
    queryKey: CALENDAR_KEY,
    queryFn: () => call(client.GET('/operator/production-calendar')).then((r) => r.data),
  })
}

/** Saves the calendar: every open production order is dated again, so the board and its counts change too. */
export function useSetProductionCalendar() {
  const queryClient = useQueryClient()
  return useMutation({
    mutationFn: (body: CalendarInput) =>
      call(client.PUT('/operator/production-calendar', { body })).then((r) => r.data),
    onSuccess: (saved) => {
      queryClient.setQueryData(CALENDAR_KEY, saved.calendar)
      return Promise.all([
        queryClient.invalidateQueries({ queryKey: ['operator', 'board'] }),
        queryClient.invalidateQueries({ queryKey: ['operator', 'production-order'] }),
        queryClient.invalidateQueries({ queryKey: ['operator', 'due'] }),
      ])
    },
  })
}

/** Open production orders late and due today, of one organization or all; refreshed like the board. */
export function useDueCounts(organizationId?: string) {
  return useQuery({
    queryKey: ['operator', 'due', organizationId ?? ''],
    queryFn: () =>
      call(
        client.GET('/operator/production/due', {
          params: { query: organizationId ? { organization_id: organizationId } : {} },
        }),
      ).then((r) => r.data),
    refetchInterval: 5_000,
  })
}
