import { Button } from '@mantine/core'
import type { ReactNode } from 'react'

/** What the button needs of an infinite query (TanStack Query's useInfiniteQuery result). */
export type Pages = { hasNextPage: boolean; isFetchingNextPage: boolean; fetchNextPage: () => unknown }

/** Keyset paging of a list: fetches the next page while the list has one, and is busy meanwhile. */
export function NextPageButton({ pages, children }: { pages: Pages; children: ReactNode }) {
  if (!pages.hasNextPage) return null
  return (
    <Button
      variant="default"
      w="fit-content"
      loading={pages.isFetchingNextPage}
      onClick={() => pages.fetchNextPage()}
    >
      {children}
    </Button>
  )
}
