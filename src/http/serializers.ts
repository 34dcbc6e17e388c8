import { SerializerSelector } from '@fastify/fast-json-stringify-compiler'
import type { FastifyServerOptions } from 'fastify'

type SerializerFactory = NonNullable<
  NonNullable<FastifyServerOptions['schemaController']>['compilersFactory']
>['buildSerializer']

const compileNow = SerializerSelector()

/**
 * Response serializers (fast-json-stringify) compiled when a route first answers
 * with a status, instead of all of them at startup: compiling every route's
 * schemas took about a second of CPU per start (most of the time it took), for
 * answers many instances never give. The first answer of each kind pays a few
 * milliseconds; the serializer is the same, and the OpenAPI tests run every
 * documented answer through it.
 */
export const compileSerializersOnFirstUse: SerializerFactory = (externalSchemas, options) => {
  const compile = compileNow(externalSchemas as never, options as never)
  return (route) => {
    let serialize: ((data: unknown) => string) | undefined
    return (data) => {
      serialize ??= compile(route) as (data: unknown) => string
      return serialize(data)
    }
  }
}
