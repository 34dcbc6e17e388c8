import type { ColumnType } from 'kysely'

export const ENVIRONMENTS = ['test', 'live'] as const
export type Environment = (typeof ENVIRONMENTS)[number]
export const ORDER_SOURCES = ['api', 'shop'] as const
export type OrderSource = (typeof ORDER_SOURCES)[number]

/** numeric columns come back as strings from both drivers; they go in as numbers. */
export type NullableNumeric = ColumnType<string | null, number | string | null, number | string | null>
/** json columns: written as a JSON string, read back parsed. */
export type Json<T> = ColumnType<T, string, string>

/** A production order's status (the reference's five). */
export type ProductionStatus = 'pending' | 'in_progress' | 'completed' | 'failed' | 'cancelled'
