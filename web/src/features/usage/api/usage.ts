import { keepPreviousData, useQuery } from '@tanstack/react-query'
import { call, client } from '../../../lib/api.ts'

/** Usage counted for billing: the owners' Usage page (the console's Billing page: console/api/platform-usage.ts). */
export function useOrganizationUsage(month: string) {
  return useQuery({
    queryKey: ['usage', month],
    queryFn: () => call(client.GET('/usage', { params: { query: { month } } })).then((r) => r.data),
    placeholderData: keepPreviousData,
    refetchInterval: 10_000,
  })
}
