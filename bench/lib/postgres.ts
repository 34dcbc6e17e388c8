import { randomBytes } from 'node:crypto'
import pg from 'pg'

/** The --pg-url option of the benches that need PostgreSQL: an admin URL (BENCH_PG_URL, else the local `test` database). */
export const PG_URL_OPTION = {
  type: 'string',
  default: process.env.BENCH_PG_URL ?? 'postgres://postgres@127.0.0.1:5432/test',
} as const

/** A fresh database `<prefix>_<random>` next to the admin URL's; drop() removes it and ends the admin connection. */
export async function freshDatabase(
  adminUrl: string,
  prefix: string,
): Promise<{ name: string; url: string; drop(): Promise<void> }> {
  const name = `${prefix}_${randomBytes(4).toString('hex')}`
  const admin = new pg.Client({ connectionString: adminUrl })
  await admin.connect()
  await admin.query(`create database ${name}`)
  const url = new URL(adminUrl)
  url.pathname = `/${name}`
  return {
    name,
    url: url.toString(),
    async drop() {
      await admin.query(`drop database if exists ${name} with (force)`).catch(() => {})
      await admin.end()
    },
  }
}
