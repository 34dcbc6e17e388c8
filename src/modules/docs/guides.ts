import { existsSync, readdirSync, readFileSync } from 'node:fs'
import { basename, join, posix } from 'node:path'
import { Marked, type Tokens } from 'marked'
import { gfmHeadingId } from 'marked-gfm-heading-id'

/** The project's root: README.md and docs/ are read from there, whatever the working directory. */
export const PROJECT_ROOT = new URL('../../../', import.meta.url).pathname

/** Where the guides live under /docs. */
export const GUIDES_PATH = '/docs/guides'
export const IMAGES_PATH = '/docs/images'

export interface Guide {
  /** The URL name: `webhooks`, `decisions/2026-11-25-...`. */
  name: string
  /** Path from the project root: `docs/webhooks.md`. */
  source: string
  /** Its first heading. */
  title: string
  /** Short name for the navigation; undefined for pages listed only in the decisions index. */
  label?: string
}

/** Navigation labels and order of the guides every reader starts from; other docs/*.md follow. */
const LABELS: Record<string, string> = {
  introduction: 'Introduction',
  api: 'API guide',
  webhooks: 'Webhooks',
  client: 'Client',
  operations: 'Operations',
  cli: 'Admin CLI',
  architecture: 'Architecture',
}

const titleOf = (markdown: string, fallback: string) => /^# (.+)$/m.exec(markdown)?.[1]?.trim() ?? fallback

const markdownFiles = (dir: string) =>
  existsSync(join(PROJECT_ROOT, dir))
    ? readdirSync(join(PROJECT_ROOT, dir))
        .filter((f) => f.endsWith('.md'))
        .sort()
    : []

function guide(name: string, source: string, label?: string): Guide {
  const text = readFileSync(join(PROJECT_ROOT, source), 'utf8')
  return { name, source, title: titleOf(text, name), ...(label ? { label } : {}) }
}

/** Every guide: the README as the introduction, docs/*.md, and the decision records. */
export function discoverGuides(): Guide[] {
  const top = markdownFiles('docs').map((f) => basename(f, '.md'))
  const order = (name: string) => {
    const i = Object.keys(LABELS).indexOf(name)
    return i < 0 ? Object.keys(LABELS).length : i
  }
  top.sort((a, b) => order(a) - order(b) || a.localeCompare(b))
  const capitalized = (name: string) => name.charAt(0).toUpperCase() + name.slice(1).replace(/-/g, ' ')
  return [
    guide('introduction', 'README.md', LABELS.introduction),
    ...top.map((name) => guide(name, `docs/${name}.md`, LABELS[name] ?? capitalized(name))),
    ...markdownFiles('docs/decisions').map((f) =>
      guide(`decisions/${basename(f, '.md')}`, `docs/decisions/${f}`),
    ),
  ]
}

/**
 * Where a relative link of a guide leads on the served pages: another guide
 * (anchor kept), an image of docs/images, the decisions index; undefined for
 * files that are not served (examples, benchmarks), which stay plain text.
 */
export function rewriteLink(href: string, source: string, guides: Guide[]): string | undefined {
  if (/^[a-z][a-z0-9+.-]*:|^\/|^#/i.test(href)) return href
  const [path = '', anchor] = href.split('#') as [string, string | undefined]
  const target = posix.normalize(posix.join(posix.dirname(source), path)).replace(/\/$/, '')
  const hash = anchor ? `#${anchor}` : ''
  const found = guides.find((g) => g.source === target)
  if (found) return `${GUIDES_PATH}/${found.name}${hash}`
  if (target === 'docs/decisions') return `${GUIDES_PATH}/decisions${hash}`
  if (target.startsWith('docs/images/')) return `${IMAGES_PATH}/${target.slice('docs/images/'.length)}`
  return undefined
}

/** The guide's markdown as HTML, headings with GitHub's ids so #anchors of the files keep working. */
export function renderGuide(guide: Guide, guides: Guide[]): string {
  const markdown = readFileSync(join(PROJECT_ROOT, guide.source), 'utf8')
  const marked = new Marked(gfmHeadingId(), {
    walkTokens(token) {
      if (token.type === 'link' || token.type === 'image') {
        const t = token as Tokens.Link | Tokens.Image
        t.href = rewriteLink(t.href, guide.source, guides) ?? ''
      }
    },
    hooks: {
      // Code blocks scroll sideways: keyboard users reach them with Tab.
      postprocess: (html) => html.replaceAll('<pre>', '<pre tabindex="0">'),
    },
    renderer: {
      link(token) {
        // A link to a file that is not served shows its text only.
        return token.href === '' ? this.parser.parseInline(token.tokens) : false
      },
    },
  })
  return marked.parse(markdown, { async: false })
}
