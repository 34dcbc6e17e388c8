import { useQuery } from '@tanstack/react-query'
import { call, client } from '../../../lib/api.ts'

export function useHome() {
  return useQuery({
    queryKey: ['home'],
    queryFn: () => call(client.GET('/home')),
    // New orders and status changes appear without a reload.
    refetchInterval: 5_000,
  })
}
