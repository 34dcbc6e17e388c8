import type { Readable } from 'node:stream'
import Type, { type Static } from 'typebox'
import { StringEnum, Timestamp, Uuid } from '../../http/schemas.ts'
import { AUDIT_ACTIONS } from './audit.actions.ts'

const closed = { additionalProperties: false } as const

/** One entry of an organization's audit log, with its sentence. */
export const AuditEntry = Type.Object({
  id: Uuid,
  actor: Type.String({ description: "An account's email, or operator token." }),
  action: Type.String({ description: 'member.signed_in, member.invited, member.role_changed ...' }),
  summary: Type.String({
    description:
      'The entry as a sentence, e.g. "ada@shop.test created live key svc_live_ab12… with orders:write".',
  }),
  subject: Type.String(),
  details: Type.Record(Type.String(), Type.Unknown()),
  address: Type.Union([Type.String(), Type.Null()]),
  created_at: Timestamp,
})
export type AuditEntry = Static<typeof AuditEntry>

/** What both logs and their CSV can be narrowed to. */
const auditFilter = {
  actor: Type.Optional(
    Type.String({
      minLength: 1,
      maxLength: 320,
      description: "Only this actor's entries: an email, or operator token.",
    }),
  ),
  action: Type.Optional(StringEnum(AUDIT_ACTIONS, { description: 'Only entries of this action.' })),
  from: Type.Optional(
    Type.String({ format: 'date-time', description: 'Only entries at or after this instant.' }),
  ),
  to: Type.Optional(Type.String({ format: 'date-time', description: 'Only entries before this instant.' })),
}
export const AuditCsvQuery = Type.Object(auditFilter, closed)
export type AuditCsvQuery = Static<typeof AuditCsvQuery>
export const AuditQuery = Type.Object(
  {
    limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 100, default: 50 })),
    cursor: Type.Optional(Type.String({ maxLength: 100 })),
    ...auditFilter,
  },
  closed,
)
export const AuditCsv = {
  description: 'The filtered log, newest first, a line per entry with its sentence; as an attachment.',
  content: { 'text/csv': { schema: Type.Unsafe<Readable>({ type: 'string' }) } },
}
export const AuditPage = Type.Object({
  data: Type.Array(AuditEntry),
  next_cursor: Type.Union([Type.String(), Type.Null()]),
})
export type AuditPage = Static<typeof AuditPage>
export const OperatorAuditEntry = Type.Object({
  ...AuditEntry.properties,
  organization_id: Type.Union([Uuid, Type.Null()], {
    description: 'The organization the action concerns; null for the platform itself (operators).',
  }),
})
export const OperatorAuditPage = Type.Object({
  data: Type.Array(OperatorAuditEntry),
  next_cursor: Type.Union([Type.String(), Type.Null()]),
})
export type OperatorAuditPage = Static<typeof OperatorAuditPage>
