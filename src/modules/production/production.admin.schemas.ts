import Type from 'typebox'

export const IdParams = Type.Object({ id: Type.String() })
