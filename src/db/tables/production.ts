import type { ColumnType } from 'kysely'

/** Open: orders join and leave; in_progress: started; completed and failed: finished. */
export type BatchStatus = 'open' | 'in_progress' | 'completed' | 'failed'

/** Production orders made together (migration 0039). */
export interface BatchTable {
  id: string
  name: string
  status: ColumnType<BatchStatus, BatchStatus | undefined, BatchStatus>
  /** The operator who made it (an account's email, or `operator token`). */
  created_by: string
  created_at: Date
  updated_at: Date
  started_at: ColumnType<Date | null, Date | null | undefined, Date | null>
  finished_at: ColumnType<Date | null, Date | null | undefined, Date | null>
}

/** A production order in a batch; `open` until the batch finishes (one open batch per production order). */
export interface BatchOrderTable {
  batch_id: string
  production_order_id: string
  added_at: Date
  open: ColumnType<boolean, boolean | undefined, boolean>
}

/** A named place on the floor operators act from ("Press 2", "Packing"). */
export interface StationTable {
  id: string
  name: string
  created_at: Date
  updated_at: Date
  archived_at: ColumnType<Date | null, Date | null | undefined, Date | null>
}
