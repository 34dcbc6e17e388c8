import { useQuery } from '@tanstack/react-query'
import type { HomeAnswer } from '../../../../../src/modules/orders/home.dashboard.schemas.ts'
import { api } from '../../../lib/api.ts'

export function useHome() {
  return useQuery({
    queryKey: ['home'],
    queryFn: () => api<HomeAnswer>('GET', '/home'),
    // New orders and status changes appear without a reload.
    refetchInterval: 5_000,
  })
}
