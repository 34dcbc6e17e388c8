import { SaxesParser } from 'saxes'

/**
 * What an SVG may contain before it is parsed into a DOM for sanitizing. The
 * DOM (jsdom) costs about 10 KB and 0.3 ms per node, so these bound the work
 * of one file; docs/decisions/2026-11-25-svg-complexity-limits.md has the
 * numbers. Real design-tool exports stay far below them.
 */
export const SVG_LIMITS = {
  /** Elements, comments, CDATA sections and processing instructions. */
  elements: 50_000,
  /** The elements plus their attributes and the runs of text between them. */
  nodes: 150_000,
  /** Elements inside one another (libxml2, and so most SVG tools, stop at 256 too). */
  depth: 256,
  attributesPerElement: 256,
  /** Characters that entities declared in the file's DTD expand to, in all. */
  entityExpansion: 1_048_576,
} as const

class LimitExceeded extends Error {}

/**
 * Streams the file once through the XML tokenizer jsdom itself uses (saxes),
 * without building anything, and returns why the file is too complex to
 * sanitize, or undefined. Well-formedness is not judged here: at the first
 * XML error the count stops and the DOM parser refuses the file at the same
 * place.
 */
export function svgComplexity(source: string): string | undefined {
  const parser = new SaxesParser({ defaultXMLVersion: '1.0', forceXMLVersion: true })
  const entities = new Map<string, number>()
  let elements = 0
  let nodes = 0
  let depth = 0
  const count = (element: boolean, n: number) => {
    if (element && ++elements > SVG_LIMITS.elements) {
      throw new LimitExceeded(`The SVG file has more than ${SVG_LIMITS.elements} elements.`)
    }
    nodes += n
    if (nodes > SVG_LIMITS.nodes) {
      throw new LimitExceeded(
        `The SVG file has more than ${SVG_LIMITS.nodes} nodes (elements, attributes, texts and comments).`,
      )
    }
  }
  parser.on('opentag', (tag) => {
    depth += 1
    if (depth > SVG_LIMITS.depth) {
      throw new LimitExceeded(`The SVG file nests elements more than ${SVG_LIMITS.depth} levels deep.`)
    }
    const attributes = Object.keys(tag.attributes).length
    if (attributes > SVG_LIMITS.attributesPerElement) {
      throw new LimitExceeded(
        `An element of the SVG file has more than ${SVG_LIMITS.attributesPerElement} attributes.`,
      )
    }
    count(true, 1 + attributes)
  })
  parser.on('closetag', () => {
    depth -= 1
  })
  parser.on('text', () => count(false, 1))
  for (const event of ['comment', 'cdata', 'processinginstruction'] as const) {
    parser.on(event, () => count(true, 1))
  }
  // jsdom declares the DTD's internal entities this way (browser/parser/xml.js);
  // here they expand to nothing, and their references are counted afterwards.
  parser.on('doctype', (doctype) => {
    for (const [, name, value] of doctype.matchAll(/<!ENTITY ([^ ]+) "([^"]+)">/g)) {
      if (!(name! in parser.ENTITIES)) {
        parser.ENTITIES[name!] = ''
        entities.set(name!, value!.length)
      }
    }
  })
  let stopped = false
  parser.on('error', () => {
    stopped = true
  })
  try {
    // In slices, so that the first XML error stops the count early.
    for (let at = 0; at < source.length && !stopped; at += 65_536) {
      parser.write(source.slice(at, at + 65_536))
    }
    if (!stopped) parser.close()
  } catch (err) {
    if (err instanceof LimitExceeded) return err.message
    throw err
  }
  if (entities.size > 0) {
    // Every reference counts, even in comments: an over-estimate never lets a bomb through.
    let expanded = 0
    for (const [, name] of source.matchAll(/&([^\s&;<>]+);/g)) expanded += entities.get(name!) ?? 0
    if (expanded > SVG_LIMITS.entityExpansion) {
      return `The entities of the SVG file expand to more than ${SVG_LIMITS.entityExpansion} characters.`
    }
  }
  return undefined
}
