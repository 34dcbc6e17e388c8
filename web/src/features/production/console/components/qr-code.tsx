import QRCode from 'qrcode'
import { useEffect, useState } from 'react'

/**
 * A QR code made here (no service, no network) as an SVG image, for the
 * printed sheets: a scanner at the workbench reads the text back
 * (lib/qr-payloads.ts says what each carries).
 */
export function useQrCode(text: string): string | undefined {
  const [url, setUrl] = useState<string>()
  useEffect(() => {
    let live = true
    QRCode.toString(text, { type: 'svg', errorCorrectionLevel: 'M', margin: 2 }).then((svg) => {
      if (live) setUrl(`data:image/svg+xml;charset=utf-8,${encodeURIComponent(svg)}`)
    })
    return () => {
      live = false
    }
  }, [text])
  return url
}

/** A sheet's QR code with its text printed small under it; `small` for an item's line. */
export function SheetQr({ payload, label, small }: { payload: string; label: string; small?: boolean }) {
  const url = useQrCode(payload)
  return (
    <figure className={small ? 'qr qr-small' : 'qr'}>
      {url && <img src={url} alt={label} />}
      <figcaption>{payload}</figcaption>
    </figure>
  )
}
