import type { FastifyReply } from 'fastify'
import type { CustomerMatch } from './personal-data.repo.ts'

/** The export as a JSON file to download, named by its day. */
export function sendExport(reply: FastifyReply, document: { exported_at: string }) {
  return reply
    .header(
      'content-disposition',
      `attachment; filename="personal-data-${document.exported_at.slice(0, 10)}.json"`,
    )
    .send(document)
}

/** The search of a request body (every surface's same fields). */
export const matchOf = (body: {
  email?: string
  phone?: string
  name?: string
  order_ids?: string[]
}): CustomerMatch => ({
  email: body.email,
  phone: body.phone,
  name: body.name,
  orderIds: body.order_ids,
})
