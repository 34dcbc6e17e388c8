import type { Measurement } from './facts.ts'
import { measurePdf } from './measure-pdf.ts'
import { measureRaster } from './measure-raster.ts'
import { measureDxf, measureEps, measureSvg } from './measure-vector.ts'

/** Measures one stored file by its detected content type (facts.ts says what comes out). */
export async function measureFile(bytes: Buffer, contentType: string): Promise<Measurement> {
  switch (contentType) {
    case 'application/pdf':
      return measurePdf(bytes)
    case 'image/svg+xml':
      return measureSvg(bytes)
    case 'application/postscript':
      return measureEps(bytes)
    case 'application/dxf':
      return measureDxf(bytes)
    default:
      return measureRaster(bytes)
  }
}
