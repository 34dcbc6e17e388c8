import assert from 'node:assert/strict'
import { existsSync, readdirSync, readFileSync } from 'node:fs'
import { dirname, join, normalize } from 'node:path'
import { describe, test } from 'node:test'

/** The pages users read: the README, docs/ (decision records included) and the bench page. */
const PAGES = [
  'README.md',
  'bench/README.md',
  ...readdirSync('docs', { recursive: true, encoding: 'utf8' })
    .filter((f) => f.endsWith('.md'))
    .map((f) => join('docs', f)),
]

/** GitHub's anchor for a heading: lower case, punctuation dropped, spaces as hyphens. */
const slug = (heading: string) =>
  heading
    .toLowerCase()
    .replace(/[^\p{L}\p{N} _-]/gu, '')
    .replace(/ /g, '-')

function anchors(page: string): Set<string> {
  const text = readFileSync(page, 'utf8').replace(/```[\s\S]*?```/g, '')
  return new Set([...text.matchAll(/^#+ (.+)$/gm)].map((m) => slug(m[1]!)))
}

describe('user documentation', () => {
  test('every relative link leads to a file of the project, and every #anchor to a heading', () => {
    const broken: string[] = []
    for (const page of PAGES) {
      const text = readFileSync(page, 'utf8').replace(/```[\s\S]*?```/g, '')
      for (const [, target] of text.matchAll(/\]\(([^)\s]+)\)/g)) {
        if (/^[a-z]+:/.test(target!)) continue
        const [path, anchor] = target!.split('#') as [string, string | undefined]
        const file = path === '' ? page : normalize(join(dirname(page), path))
        if (!existsSync(file) || file.startsWith('..')) broken.push(`${page}: ${target} (no such file)`)
        else if (anchor && file.endsWith('.md') && !anchors(file).has(anchor)) {
          broken.push(`${page}: ${target} (no such heading)`)
        }
      }
    }
    assert.deepEqual(broken, [])
  })

  test('no page refers to documents outside the project', () => {
    for (const page of PAGES) {
      const text = readFileSync(page, 'utf8')
      assert.doesNotMatch(text, /\.\.\/shared|DECISIONS\.md|spec\/000_/, page)
    }
  })

  test('the README stays a page for users: under 250 lines', () => {
    const lines = readFileSync('README.md', 'utf8').split('\n').length
    assert.ok(lines < 250, `README.md has ${lines} lines`)
  })
})
