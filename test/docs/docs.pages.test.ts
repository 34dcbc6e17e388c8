import assert from 'node:assert/strict'
import { existsSync, readdirSync, readFileSync } from 'node:fs'
import { dirname, join, normalize } from 'node:path'
import { after, before, describe, test } from 'node:test'
import { OWN_ASSETS_DIR, RENDERER_DIR } from '../../src/modules/docs/compressed.ts'
import { ASSETS_PATH, RENDERER_PATH, RENDERER_VERSION } from '../../src/modules/docs/pages.ts'
import { createTestApp, type TestApp } from '../helpers/app.ts'
import { assertEncoded, decoded, getEncoded, pageFiles, wireBytes } from '../helpers/encodings.ts'

/** The pages of /docs as any HTTP client gets them: headers, links, files, refusals. */
describe('/docs pages', () => {
  let t: TestApp
  before(async () => {
    t = await createTestApp()
  })
  after(() => t.close())

  const get = (url: string) => t.app.inject({ method: 'GET', url })
  const hrefs = (html: string) => [...html.matchAll(/\shref="([^"]*)"/g)].map((m) => m[1]!)
  const srcs = (html: string) => [...html.matchAll(/\ssrc="([^"]*)"/g)].map((m) => m[1]!)
  const guideNames = readdirSync('docs')
    .filter((f) => f.endsWith('.md'))
    .map((f) => f.slice(0, -3))

  test('/docs is public, loads only files of this origin, under a CSP of this origin only', async () => {
    const res = await get('/docs')
    assert.equal(res.statusCode, 200)
    assert.match(String(res.headers['content-type']), /^text\/html; charset=utf-8/)
    const csp = String(res.headers['content-security-policy'])
    assert.match(csp, /default-src 'self'/)
    assert.doesNotMatch(csp, /https?:|\*|unsafe-eval|script-src[^;]*unsafe-inline/)
    assert.equal(res.headers['x-content-type-options'], 'nosniff')
    assert.deepEqual(
      [...hrefs(res.body), ...srcs(res.body)].filter((u) => !u.startsWith('/')),
      [],
      'every link and script is of this origin',
    )
    assert.ok(res.body.includes('data-openapi-url="/v1/openapi.json"'))
    for (const name of ['introduction', ...guideNames, 'decisions']) {
      assert.ok(hrefs(res.body).includes(`/docs/guides/${name}`), `the navigation links ${name}`)
    }
  })

  test('the renderer and its settings are served from the service itself', async () => {
    assert.equal(RENDERER_PATH, `/docs/assets/scalar/${RENDERER_VERSION}`)
    assert.match(RENDERER_VERSION, /^\d+\.\d+\.\d+/)
    const bundle = await get(`${RENDERER_PATH}/standalone.js`)
    assert.equal(bundle.statusCode, 200)
    assert.match(String(bundle.headers['content-type']), /javascript/)
    assert.ok(bundle.rawPayload.length > 1_000_000, 'the whole bundle')
    const settings = await get('/docs/assets/reference.js')
    assert.equal(settings.statusCode, 200)
    assert.match(settings.body, /withDefaultFonts: false/)
    assert.match(settings.body, /hideTestRequestButton: true/)
    const css = await get('/docs/assets/docs.css')
    assert.match(String(css.headers['content-type']), /^text\/css/)
    assert.doesNotMatch(css.body, /url\(|@import/, 'the stylesheet fetches nothing')
  })

  test('every guide renders, and every link between the pages leads to a page and its heading', async () => {
    const pages = new Map<string, string>()
    const queue = ['/docs', '/docs/guides/decisions']
    const anchored: string[] = []
    const broken: string[] = []
    while (queue.length) {
      const path = queue.shift()!
      if (pages.has(path)) continue
      const res = await get(path)
      if (res.statusCode !== 200) broken.push(`${path}: ${res.statusCode}`)
      pages.set(path, res.body)
      if (res.statusCode !== 200 || !path.startsWith('/docs/guides/')) continue
      assert.match(String(res.headers['content-security-policy']), /default-src 'self'.*script-src 'none'/)
      assert.match(res.body, /<main class="guide">\s*<h1[^>]*>/, `${path} starts with its title`)
      for (const href of hrefs(res.body)) {
        if (/^https?:/.test(href)) continue
        assert.doesNotMatch(href, /\.md(#|$)/, `${path} links a markdown file: ${href}`)
        const [target = '', anchor] = href.split('#') as [string, string | undefined]
        if (target.startsWith('/docs/guides/')) queue.push(target)
        if (anchor) anchored.push(`${target || path}#${anchor}`)
      }
    }
    assert.deepEqual(broken, [])
    for (const link of anchored) {
      const [target, anchor] = link.split('#') as [string, string]
      assert.ok(pages.get(target)?.includes(`id="${anchor}"`), `${link}: no such heading`)
    }
    for (const name of ['introduction', ...guideNames]) assert.ok(pages.has(`/docs/guides/${name}`), name)
    const decisions = readdirSync('docs/decisions').filter((f) => f.endsWith('.md'))
    const served = [...pages.keys()].filter((p) => p.startsWith('/docs/guides/decisions/'))
    assert.equal(served.length, decisions.length, 'every decision record is listed')
  })

  test('links to files that are not served keep their text and lose the link', async () => {
    const res = await get('/docs/guides/introduction')
    assert.match(res.body, /the example receiver/)
    assert.ok(!hrefs(res.body).some((h) => h.includes('examples/')))
    assert.ok(hrefs(res.body).includes('/docs/guides/operations#tests'))
  })

  test('the pictures of docs/images show on the pages', async () => {
    const intro = await get('/docs/guides/introduction')
    assert.ok(srcs(intro.body).includes('/docs/images/docs-reference.png'))
    const image = await get('/docs/images/docs-reference.png')
    assert.equal(image.statusCode, 200)
    assert.equal(image.headers['content-type'], 'image/png')
    assert.deepEqual([...image.rawPayload.subarray(1, 4)], [...Buffer.from('PNG')])
  })

  test('unknown guides and paths outside the served folders are 404 in the error shape', async () => {
    for (const url of [
      '/docs/guides/nope',
      '/docs/guides/..%2F..%2Fpackage.json',
      '/docs/guides/decisions/..%2F..%2F..%2Fpackage',
      '/docs/assets/scalar/../../../package.json',
      '/docs/assets/scalar/%2e%2e/%2e%2e/%2e%2e/%2e%2e/package.json',
      '/docs/images/..%2F..%2Fpackage.json',
      '/docs/assets/nope.js',
    ]) {
      const res = await get(url)
      assert.equal(res.statusCode, 404, url)
      assert.equal(res.json().error.code, 'not_found', url)
    }
  })

  describe('compressed', () => {
    const load = (url: string, acceptEncoding?: string) => getEncoded(t.app, url, acceptEncoding)
    /** The file a URL of the renderer or of our assets is served from. */
    const original = (url: string) =>
      readFileSync(
        url.startsWith(`${RENDERER_PATH}/`)
          ? join(RENDERER_DIR, url.slice(RENDERER_PATH.length + 1))
          : join(OWN_ASSETS_DIR, url.slice(ASSETS_PATH.length + 1)),
      )

    test('/docs and all it loads are under 1.2 MB on the wire to a browser, the files Brotli, byte for byte', async (ctx) => {
      const page = await load('/docs', 'br, gzip')
      assertEncoded(page, 'br', '/docs')
      assert.equal(
        page.headers['content-security-policy'],
        (await load('/docs')).headers['content-security-policy'],
      )
      assert.equal(page.headers['x-content-type-options'], 'nosniff')
      assert.equal(decoded(page).toString(), (await load('/docs')).body)
      const files = pageFiles(decoded(page).toString())
      assert.ok(files.includes(`${RENDERER_PATH}/standalone.js`), files.join())
      assert.ok(files.includes(`${ASSETS_PATH}/docs.css`), files.join())
      let total = wireBytes(page)
      for (const file of files) {
        const res = await load(file, 'br, gzip')
        assertEncoded(res, 'br', file)
        assert.deepEqual(decoded(res), original(file), file)
        assert.equal(res.headers['x-content-type-options'], 'nosniff', file)
        assert.match(
          String(res.headers['content-type']),
          file.endsWith('.js') ? /javascript/ : file.endsWith('.css') ? /^text\/css/ : /^image\/svg\+xml/,
        )
        total += wireBytes(res)
      }
      // The renderer then reads the document the page names.
      const documentUrl = /data-openapi-url="([^"]+)"/.exec(decoded(page).toString())?.[1]
      const document = await load(documentUrl!, 'br, gzip')
      assertEncoded(document, 'br', documentUrl!)
      assert.deepEqual(JSON.parse(decoded(document).toString()), (await load(documentUrl!)).json())
      total += wireBytes(document)
      ctx.diagnostic(`/docs first load: ${total} bytes on the wire`)
      assert.ok(total < 1_200_000, `${total} bytes`)
    })

    test('the renderer is kept for a year under its version; our files are revalidated', async () => {
      const bundle = await load(`${RENDERER_PATH}/standalone.js`, 'br')
      assert.equal(bundle.headers['cache-control'], 'public, max-age=31536000, immutable')
      const css = await load(`${ASSETS_PATH}/docs.css`, 'br')
      assert.equal(css.headers['cache-control'], 'public, max-age=0')
      assert.ok(css.headers.etag)
      const again = await t.app.inject({
        method: 'GET',
        url: `${ASSETS_PATH}/docs.css`,
        headers: { 'accept-encoding': 'br', 'if-none-match': String(css.headers.etag) },
      })
      assert.equal(again.statusCode, 304)
      const unversioned = await load('/docs/assets/scalar/standalone.js', 'br')
      assert.equal(unversioned.statusCode, 404)
    })

    test('gzip-only clients get gzip; clients without Accept-Encoding the file itself', async () => {
      for (const file of [`${RENDERER_PATH}/standalone.js`, `${ASSETS_PATH}/docs.css`]) {
        const gz = await load(file, 'gzip')
        assertEncoded(gz, 'gzip', file)
        assert.deepEqual(decoded(gz), original(file), file)
        for (const acceptEncoding of [undefined, 'identity']) {
          const plain = await load(file, acceptEncoding)
          assertEncoded(plain, undefined, `${file} with ${acceptEncoding}`)
          assert.deepEqual(plain.rawPayload, original(file), file)
        }
      }
      const page = await load('/docs', 'gzip')
      assertEncoded(page, 'gzip', '/docs')
      const plain = await load('/docs')
      assert.equal(plain.headers['content-encoding'], undefined)
      assert.equal(decoded(page).toString(), plain.body)
    })

    test('the copies are no files of their own; missing files and .. stay 404', async () => {
      for (const url of [
        `${RENDERER_PATH}/standalone.js.br`,
        `${RENDERER_PATH}/standalone.js.gz`,
        `${ASSETS_PATH}/docs.css.gz`,
        `${ASSETS_PATH}/nope.js`,
        `${RENDERER_PATH}/nope.js`,
        `${RENDERER_PATH}/../../../../package.json`,
        `${RENDERER_PATH}/%2e%2e/%2e%2e/%2e%2e/%2e%2e/%2e%2e/package.json`,
        '/docs/images/..%2F..%2Fpackage.json',
      ]) {
        const res = await load(url, 'br, gzip')
        assert.equal(res.statusCode, 404, url)
        assert.equal(res.json().error.code, 'not_found', url)
      }
    })
  })

  test('the OpenAPI document does not list the documentation pages', async () => {
    const doc = (await get('/v1/openapi.json')).json()
    assert.deepEqual(
      Object.keys(doc.paths).filter((p) => p.startsWith('/docs')),
      [],
    )
  })
})

describe('user documentation', () => {
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
