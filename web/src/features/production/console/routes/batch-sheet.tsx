import './job-sheet.css'
import './batch-sheet.css'
import { useEffect } from 'react'
import { useParams } from 'react-router'
import { fieldValue } from '../../../../components/personalization.tsx'
import { exactTime, formatNumber } from '../../../../lib/format.ts'
import { thumbnailUrl, usePreflight } from '../../../preflight/api.ts'
import { formatDay } from '../../lib/due-words.ts'
import { qrPayload } from '../../lib/qr-payloads.ts'
import { type BatchDetail, type BatchLine, batchStatusLabel, useBatch } from '../api/batches.ts'
import { productTitle } from '../components/batch-products.tsx'
import { PrintedSheet, useOperatorAccount } from '../components/printed-sheet.tsx'
import { SheetQr } from '../components/qr-code.tsx'

/** One item's line: its order, quantity, personalization, file thumbnails, its job's QR code and a box to tick. */
function SheetLine({ line, name }: { line: BatchLine; name: string }) {
  const fields = Object.entries(line.personalization)
  const preflight = usePreflight('operator', line.order_id).data?.items.find(
    (i) => i.item_id === line.item_id,
  )
  const label = `${line.external_order_id}, item ${line.position + 1}`
  return (
    <section className="item" aria-labelledby={`line-${line.item_id}`}>
      <div className="item-head">
        <h3 id={`line-${line.item_id}`}>
          Order {line.external_order_id}: {formatNumber(line.quantity)} × {name} (item {line.position + 1})
        </h3>
        <div className="item-marks">
          {line.job && (
            <SheetQr small payload={qrPayload.job(line.job.id)} label={`QR code of the job of ${label}`} />
          )}
          <div className="check" aria-hidden="true" />
        </div>
      </div>
      <div className="line-body">
        {fields.length === 0 ? (
          <p>No personalization.</p>
        ) : (
          <dl aria-label={`Personalization of ${label}`}>
            {fields.map(([k, v]) => (
              <div key={k} style={{ display: 'contents' }}>
                <dt>{k}</dt>
                <dd>{fieldValue(v)}</dd>
              </div>
            ))}
          </dl>
        )}
        {line.files.length > 0 && (
          <ul className="files" aria-label={`Files of ${label}`}>
            {line.files.map((file, n) => {
              const check = preflight?.files.find((f) => f.upload_id === file.upload_id)
              const what = `file ${n + 1}${file.role ? ` (${file.role})` : ''}`
              return (
                <li key={file.upload_id}>
                  {check?.thumbnail ? (
                    <img
                      src={thumbnailUrl('operator', line.order_id, file.upload_id)}
                      alt={`Thumbnail of ${what} of ${label}`}
                    />
                  ) : (
                    <div className="no-thumbnail">No thumbnail</div>
                  )}
                  {what}
                </li>
              )
            })}
          </ul>
        )}
      </div>
    </section>
  )
}

function Sheet({ detail }: { detail: BatchDetail }) {
  const { batch, orders, products } = detail
  useEffect(() => {
    document.title = `Batch sheet ${batch.name} · Dashboard`
  }, [batch.name])
  const lines = products.reduce((n, p) => n + p.lines.length, 0)
  const pieces = products.reduce((n, p) => n + p.quantity, 0)
  return (
    <article className="job-sheet" aria-label="Batch sheet">
      <header>
        <div className="facts">
          <h1>Batch {batch.name}</h1>
          <dl>
            <dt>Status</dt>
            <dd>{batchStatusLabel(batch.status)}</dd>
            <dt>Orders</dt>
            <dd>{formatNumber(orders.length)}</dd>
            <dt>Items</dt>
            <dd>
              {formatNumber(lines)} ({formatNumber(pieces)} pieces)
            </dd>
            <dt>Created</dt>
            <dd>
              {exactTime(batch.created_at)} by {batch.created_by}
            </dd>
          </dl>
        </div>
        <SheetQr payload={qrPayload.batch(batch.id)} label={`QR code of batch ${batch.id}`} />
      </header>
      <section className="sheet-section" aria-labelledby="sheet-orders">
        <h2 id="sheet-orders">Orders</h2>
        <ul className="orders" aria-label="Orders of the batch">
          {orders.map((o) => (
            <li key={o.production_order.id}>
              <SheetQr
                payload={qrPayload.productionOrder(o.production_order.id)}
                label={`QR code of production order ${o.order.external_order_id}`}
              />
              <strong>{o.order.external_order_id}</strong>
              {o.organization.name}
              {o.due ? `, due ${formatDay(o.due.on)}` : ''}
            </li>
          ))}
        </ul>
      </section>
      {products.map((p) => (
        <section key={`${p.sku ?? ''} ${p.name}`} className="product" aria-label={productTitle(p)}>
          <h2>{productTitle(p)}</h2>
          {p.lines.map((line) => (
            <SheetLine key={line.item_id} line={line} name={p.name} />
          ))}
        </section>
      ))}
    </article>
  )
}

/**
 * /operator/batches/:batchId/sheet: the batch printed (A4) for the floor,
 * outside the shell like the job sheet: the batch's QR code, each order's, and
 * a line per item by product with its job's.
 */
export function BatchSheetRoute() {
  const { batchId = '' } = useParams()
  const { account, isOperator } = useOperatorAccount()
  const query = useBatch(batchId, { poll: false, enabled: isOperator })
  return (
    <PrintedSheet
      account={account}
      query={query}
      what="batch sheet"
      back={{ to: `/operator/batches/${batchId}`, label: 'Back to the batch' }}
    >
      {(data) => <Sheet detail={data} />}
    </PrintedSheet>
  )
}
