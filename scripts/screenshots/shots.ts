import type { Browser } from 'playwright-core'

/** What every group of pictures needs: the service's port and data directory, and Chromium. */
export interface Shots {
  port: number
  dataDir: string
  browser: Browser
  /** Where the order page's webhook endpoint points: nothing listens, its deliveries fail. */
  orderEndpointPort: number
}
