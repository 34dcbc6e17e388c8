import type { FastifyReply, FastifyRequest, RouteGenericInterface } from 'fastify'

/**
 * A handler that reads the request body itself (a streamed upload): when it
 * fails, the client may still be sending, so the answer closes the connection
 * instead of reading the rest of an unwanted body.
 */
export function closingOnError<Request extends FastifyRequest<RouteGenericInterface>, Result>(
  handler: (request: Request, reply: FastifyReply) => Promise<Result>,
): (request: Request, reply: FastifyReply) => Promise<Result> {
  return async (request, reply) => {
    try {
      return await handler(request, reply)
    } catch (err) {
      if (!request.raw.readableEnded) reply.header('connection', 'close')
      throw err
    }
  }
}
