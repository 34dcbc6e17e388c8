/** The text of a markdown section: from its `## title` heading to the next heading of that level. */
export function section(markdown: string, heading: string): string {
  const start = markdown.indexOf(`\n${heading}\n`)
  if (start < 0) throw new Error(`no section "${heading}"`)
  const level = /^#+/.exec(heading)![0]
  const end = markdown.indexOf(`\n${level} `, start + heading.length + 1)
  return markdown.slice(start, end < 0 ? undefined : end)
}

/**
 * The fenced code blocks marked for a test: each directly after an HTML
 * comment `<!-- tag -->` (invisible on the rendered page), in document order.
 */
export function taggedBlocks(markdown: string, tag: string): string[] {
  const marked = new RegExp(`<!-- ${tag.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')} -->\\n\`\`\`[\\w-]*\\n`, 'g')
  const blocks: string[] = []
  for (const match of markdown.matchAll(marked)) {
    const start = match.index + match[0].length
    const end = markdown.indexOf('\n```', start - 1)
    if (end < 0) throw new Error(`unclosed block after <!-- ${tag} -->`)
    blocks.push(markdown.slice(start, end + 1))
  }
  return blocks
}
