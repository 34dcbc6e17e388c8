import { keepPreviousData, useQuery } from '@tanstack/react-query'
import { type Answer, call, client } from '../../../../lib/api.ts'

/** Usage counted for billing across organizations: the console's Billing page. */
export type PlatformUsage = Answer<'/operator/usage'>['data']
export type OrganizationUsage = PlatformUsage['organizations'][number]

export function usePlatformUsage(month: string) {
  return useQuery({
    queryKey: ['operator', 'usage', month],
    queryFn: () => call(client.GET('/operator/usage', { params: { query: { month } } })).then((r) => r.data),
    placeholderData: keepPreviousData,
    refetchInterval: 10_000,
  })
}

/** The CSV download of a month (a plain link: the browser saves the attachment). */
export const usageCsvUrl = (month: string) => `/dashboard/api/operator/usage.csv?month=${month}`
