import './job-sheet.css'
import { useEffect } from 'react'
import { useParams } from 'react-router'
import { fieldValue } from '../../../../components/personalization.tsx'
import { exactTime, formatNumber } from '../../../../lib/format.ts'
import { type PreflightFile, thumbnailUrl, usePreflight } from '../../../preflight/api.ts'
import { qrPayload } from '../../lib/qr-payloads.ts'
import {
  type ProductionItem,
  type ProductionOrderPage,
  productionStatusLabel,
  useProductionOrder,
} from '../api/production.ts'
import { PrintedSheet, useOperatorAccount } from '../components/printed-sheet.tsx'
import { SheetQr } from '../components/qr-code.tsx'

function SheetItem({
  sheet,
  item,
  position,
}: {
  sheet: ProductionOrderPage
  item: ProductionItem
  position: number
}) {
  const fields = Object.entries(item.personalization)
  const preflight = usePreflight('operator', sheet.order.id).data?.items.find((i) => i.item_id === item.id)
  const checked = new Map<string, PreflightFile>(preflight?.files.map((f) => [f.upload_id, f]))
  return (
    <section className="item" aria-labelledby={`sheet-item-${item.id}`}>
      <div className="item-head">
        <h2 id={`sheet-item-${item.id}`}>
          {position}. {formatNumber(item.quantity)} × {item.name}
          {item.sku ? ` (SKU ${item.sku})` : ''}
        </h2>
        <div className="item-marks">
          {item.production_job && (
            <SheetQr
              small
              payload={qrPayload.job(item.production_job.id)}
              label={`QR code of item ${position}'s job ${item.production_job.id}`}
            />
          )}
          <div className="check" aria-hidden="true" />
        </div>
      </div>
      {fields.length === 0 ? (
        <p>No personalization.</p>
      ) : (
        <dl aria-label={`Personalization of item ${position}`}>
          {fields.map(([k, v]) => (
            <div key={k} style={{ display: 'contents' }}>
              <dt>{k}</dt>
              <dd>{fieldValue(v)}</dd>
            </div>
          ))}
        </dl>
      )}
      {item.files.length > 0 && (
        <ul className="files" aria-label={`Files of item ${position}`}>
          {item.files.map((file) => {
            const name = file.name ?? 'file'
            const check = checked.get(file.upload_id)
            const flagged = check?.status === 'problem' || check?.status === 'unmeasurable'
            return (
              <li key={file.upload_id}>
                {check?.thumbnail ? (
                  <img
                    src={thumbnailUrl('operator', sheet.order.id, file.upload_id)}
                    alt={`Thumbnail of ${name}`}
                  />
                ) : (
                  <div className="no-thumbnail">{file.content_type ?? 'file'}</div>
                )}
                {name}
                {file.role ? ` (${file.role})` : ''}
                {flagged && (
                  <p className="file-problem">
                    <strong>Print check problem:</strong>{' '}
                    {check.reason ??
                      check.checks
                        .filter((c) => c.verdict === 'problem')
                        .map((c) => c.sentence)
                        .join(' ')}
                  </p>
                )}
              </li>
            )
          })}
        </ul>
      )}
    </section>
  )
}

function Sheet({ sheet }: { sheet: ProductionOrderPage }) {
  const { order, production_order: p, organization } = sheet
  useEffect(() => {
    document.title = `Job sheet ${order.order_number} · Dashboard`
  }, [order.order_number])
  return (
    <article className="job-sheet" aria-label="Job sheet">
      <header>
        <div className="facts">
          <h1>Order {order.order_number}</h1>
          <dl>
            <dt>Organization</dt>
            <dd>{organization.name}</dd>
            <dt>Customer</dt>
            <dd>{order.customer.name}</dd>
            <dt>Ordered</dt>
            <dd>{exactTime(order.ordered_at)}</dd>
            <dt>Production</dt>
            <dd>
              {productionStatusLabel(p.status)}
              {p.produced_by_partner ? ', produced by a partner' : ''}
            </dd>
            <dt>Items</dt>
            <dd>
              {formatNumber(order.items.length)} (
              {formatNumber(order.items.reduce((n, i) => n + i.quantity, 0))} pieces)
            </dd>
          </dl>
        </div>
        <SheetQr payload={qrPayload.productionOrder(p.id)} label={`QR code of production order ${p.id}`} />
      </header>
      {order.items.map((item, n) => (
        <SheetItem key={item.id} sheet={sheet} item={item} position={n + 1} />
      ))}
    </article>
  )
}

/**
 * /operator/production/:productionOrderId/job-sheet: a printable sheet (A4) for
 * the workbench, outside the shell so that only the sheet prints.
 */
export function JobSheetRoute() {
  const { productionOrderId = '' } = useParams()
  const { account, isOperator } = useOperatorAccount()
  const query = useProductionOrder(productionOrderId, { poll: false, enabled: isOperator })
  return (
    <PrintedSheet
      account={account}
      query={query}
      what="job sheet"
      back={{ to: `/operator/production/${productionOrderId}`, label: 'Back to the production order' }}
    >
      {(data) => <Sheet sheet={data} />}
    </PrintedSheet>
  )
}
