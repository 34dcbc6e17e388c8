/**
 * What the printed sheets' QR codes carry, read back by a station's scanner:
 * a batch `batch:<batch id>`, a production order `po:<production order id>`,
 * an item's job `job:<production job id>`.
 */
export type QrSubject = 'batch' | 'po' | 'job'

export const qrPayload = {
  batch: (batchId: string) => `batch:${batchId}`,
  productionOrder: (productionOrderId: string) => `po:${productionOrderId}`,
  job: (jobId: string) => `job:${jobId}`,
}

const SCANNED = /^(batch|po|job):([0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})$/i

/** What a scanned code names, or null for anything else (surrounding spaces ignored). */
export function readQrPayload(text: string): { kind: QrSubject; id: string } | null {
  const m = SCANNED.exec(text.trim())
  return m ? { kind: m[1]!.toLowerCase() as QrSubject, id: m[2]!.toLowerCase() } : null
}
