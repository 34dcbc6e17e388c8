import Type from 'typebox'

/** Route configs of /admin/v1: the operator token. */
export const op = { auth: 'operator' as const }
/** An /admin/v1 route whose JSON body creates something: a refused one says nothing was created. */
export const opCreate = { auth: 'operator' as const, jsonBody: true, creates: true }

export const closed = { additionalProperties: false } as const
export const OrgParams = Type.Object({ org_id: Type.String() })
