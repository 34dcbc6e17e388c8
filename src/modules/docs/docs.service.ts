import { AppError } from '../../http/errors.ts'
import { discoverGuides, type Guide, renderGuide } from './guides.ts'
import { decisionsPage, guidePage, referencePage } from './pages.ts'

/**
 * The documentation pages as HTML. The guides are files of the project: read
 * and rendered once, when a page is first asked for.
 */
export function createDocsService() {
  let guides: Guide[] | undefined
  const pages = new Map<string, string>()
  const all = () => {
    guides ??= discoverGuides()
    return guides
  }
  const cached = (key: string, render: () => string) => {
    let page = pages.get(key)
    if (page === undefined) {
      page = render()
      pages.set(key, page)
    }
    return page
  }
  return {
    reference: () => cached('reference', () => referencePage(all())),
    decisions: () => cached('decisions', () => decisionsPage(all())),
    guide(name: string): string {
      const guide = all().find((g) => g.name === name)
      if (!guide) throw new AppError('not_found', { message: `There is no guide named "${name}".` })
      return cached(`guide:${name}`, () => guidePage(guide, renderGuide(guide, all()), all()))
    },
  }
}
export type DocsService = ReturnType<typeof createDocsService>
