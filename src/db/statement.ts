import { CompiledQuery } from 'kysely'
import type { Database } from './database.ts'

/**
 * A statement as its text between parameters and the parameters, for the
 * statements of the hot paths: built by a tagged template without Kysely's
 * operation tree, and turned into `$n` text once per shape.
 */
export class Statement {
  readonly parts: string[]
  readonly values: unknown[]
  constructor(parts: string[], values: unknown[]) {
    this.parts = parts
    this.values = values
  }
}

/** Text spliced into a statement as it is: a table or CTE name chosen by the code, never input. */
class Raw {
  readonly text: string
  constructor(text: string) {
    this.text = text
  }
}

export const raw = (text: string): Raw => new Raw(text)

/**
 * `stmt\`... ${value} ...\``: each value is a parameter, a Statement is
 * spliced in with its parameters, raw() text is spliced in as it is. Dates go
 * as ISO 8601 text (UTC), which PostgreSQL reads for timestamptz and the
 * driver sends without converting.
 */
export function stmt(strings: TemplateStringsArray, ...values: unknown[]): Statement {
  const parts: string[] = [strings[0]!]
  const params: unknown[] = []
  for (let i = 0; i < values.length; i++) {
    const value = values[i]
    const next = strings[i + 1]!
    if (value instanceof Statement) {
      parts[parts.length - 1] += value.parts[0]!
      for (let j = 0; j < value.values.length; j++) {
        params.push(value.values[j])
        parts.push(value.parts[j + 1]!)
      }
      parts[parts.length - 1] += next
    } else if (value instanceof Raw) {
      parts[parts.length - 1] += value.text + next
    } else {
      params.push(value instanceof Date ? value.toISOString() : value)
      parts.push(next)
    }
  }
  return new Statement(parts, params)
}

export const EMPTY = new Statement([''], [])

function textOf(statement: Statement): string {
  const { parts } = statement
  let text = parts[0]!
  for (let n = 1; n < parts.length; n++) text += `$${n}${parts[n]}`
  return text
}

export class StatementShapeError extends Error {}

/**
 * The texts of the shapes seen so far. A shape names one text: the caller
 * builds its name from every choice that changes the text (never from the
 * values), so a statement's text is joined once and is then the same string
 * on every request, which also names its prepared statement without hashing
 * a new string each time.
 */
const texts = new Map<string, { text: string; params: number }>()

/** The statement as a query with its shape's text. */
export function compiled(shape: string, statement: Statement): CompiledQuery {
  let known = texts.get(shape)
  if (!known) {
    known = { text: textOf(statement), params: statement.values.length }
    texts.set(shape, known)
  } else if (known.params !== statement.values.length) {
    throw new StatementShapeError(
      `statement ${shape}: ${statement.values.length} parameters, its text has ${known.params}`,
    )
  }
  return CompiledQuery.raw(known.text, statement.values)
}

/** Runs a statement; with a shape, its text is joined once per shape. */
export async function run<Row>(db: Database, statement: Statement, shape?: string): Promise<Row[]> {
  const query = shape ? compiled(shape, statement) : CompiledQuery.raw(textOf(statement), statement.values)
  const result = await db.executeQuery<Row>(query)
  return result.rows as Row[]
}

/** For tests: the text a statement joins to. */
export const statementText = textOf
