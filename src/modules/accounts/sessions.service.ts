import type { Database } from '../../db/database.ts'
import { AppError } from '../../http/errors.ts'
import type { Clock } from '../../lib/clock.ts'
import { newId } from '../../lib/ids.ts'
import { randomBase62, sha256Hex } from '../../lib/secrets.ts'
import { describeUserAgent } from '../../lib/user-agent.ts'
import { recordAudit } from '../audit/audit.service.ts'
import type { AccountDeps } from './accounts.deps.ts'
import {
  endOtherSessions,
  endSession,
  findAccount,
  findAccountByEmail,
  findLiveSession,
  findMemberOfAccount,
  findOperatorOfAccount,
  insertSession,
  listLiveSessions,
  revokeOpenPasswordResets,
  touchSession,
  updatePassword,
} from './accounts.repo.ts'
import {
  type AccountContext,
  type AccountView,
  accountIdOf,
  accountView,
  actorOf,
  emailOf,
  isOperator,
  normalizeEmail,
  type RequestMeta,
  type SessionView,
} from './accounts.views.ts'
import { SESSION_ABSOLUTE_MS, SESSION_IDLE_MS, SESSION_TOUCH_MS } from './limits.ts'
import { hashPassword, verifyPassword } from './passwords.ts'
import { throttleSignIn } from './sign-in-throttle.ts'

/** A new session of the account: its token, shown once (only its SHA-256 is stored). */
export async function startSession(trx: Database, clock: Clock, accountId: string, meta: RequestMeta) {
  const token = randomBase62(43)
  const now = clock.now()
  await insertSession(trx, {
    id: newId(),
    account_id: accountId,
    token_hash: sha256Hex(token),
    created_at: now,
    last_seen_at: now,
    expires_at: new Date(now.getTime() + SESSION_ABSOLUTE_MS),
    ended_at: null,
    user_agent: meta.userAgent.slice(0, 500),
    address: meta.address,
  })
  return token
}

/** Signing in and out, the sessions behind the dashboard's cookie, and the account's password. */
export function createSessionService(deps: AccountDeps) {
  const { db, clock } = deps
  const newSession = (trx: Database, accountId: string, meta: RequestMeta) =>
    startSession(trx, clock, accountId, meta)

  return {
    /** Throttled per address and per (account, address) before the password is checked. */
    async signIn(input: { email: string; password: string }, meta: RequestMeta) {
      const email = normalizeEmail(input.email)
      await throttleSignIn(deps.rateLimiter, email, meta.address)
      const account = await findAccountByEmail(db, email)
      const member = account ? await findMemberOfAccount(db, account.id) : undefined
      const operator = account && !member ? await findOperatorOfAccount(db, account.id) : undefined
      const known = member ?? operator
      const matches = await verifyPassword(
        input.password,
        known ? account?.password_hash : undefined,
        deps.passwordCost,
      )
      if (!account || !known || !matches) throw new AppError('sign_in_failed')
      const token = await db.transaction().execute(async (trx) => {
        await recordAudit(trx, clock, {
          organizationId: member ? member.organization_id : null,
          actor: { accountId: account.id, label: known.email, address: meta.address, operator: !member },
          action: member ? 'member.signed_in' : 'operator.signed_in',
          subject: known.email,
          details: { user_agent: meta.userAgent.slice(0, 200) },
        })
        return newSession(trx, account.id, meta)
      })
      return { token, account: accountView(member ? { member } : { operator: operator! }) }
    },

    /** The session of a cookie's token, or undefined when unknown, ended or expired. */
    async authenticate(token: string | undefined): Promise<AccountContext | undefined> {
      if (!token) return undefined
      const session = await findLiveSession(db, sha256Hex(token))
      if (!session) return undefined
      const now = clock.now()
      if (session.expires_at <= now) return undefined
      if (now.getTime() - session.last_seen_at.getTime() >= SESSION_IDLE_MS) return undefined
      const member = await findMemberOfAccount(db, session.account_id)
      const operator = member ? undefined : await findOperatorOfAccount(db, session.account_id)
      if (!member && !operator) return undefined
      if (now.getTime() - session.last_seen_at.getTime() >= SESSION_TOUCH_MS) {
        await touchSession(db, session.id, now)
      }
      return member ? { sessionId: session.id, member } : { sessionId: session.id, operator: operator! }
    },

    me: (ctx: AccountContext): AccountView =>
      isOperator(ctx) ? accountView({ operator: ctx.operator }) : accountView({ member: ctx.member }),

    async signOut(ctx: AccountContext): Promise<void> {
      await endSession(db, ctx.sessionId, clock.now())
    },

    async signOutOthers(ctx: AccountContext): Promise<number> {
      return endOtherSessions(db, accountIdOf(ctx), ctx.sessionId, clock.now())
    },

    async listSessions(ctx: AccountContext): Promise<SessionView[]> {
      const now = clock.now()
      const rows = await listLiveSessions(
        db,
        accountIdOf(ctx),
        now,
        new Date(now.getTime() - SESSION_IDLE_MS),
      )
      return rows.map((s) => {
        const browser = describeUserAgent(s.user_agent)
        return {
          id: s.id,
          current: s.id === ctx.sessionId,
          user_agent: s.user_agent,
          ...(browser ? { browser } : {}),
          address: s.address,
          created_at: s.created_at.toISOString(),
          last_seen_at: s.last_seen_at.toISOString(),
          expires_at: s.expires_at.toISOString(),
        }
      })
    },

    /** Changes the password and ends every other session of the account (and any unused reset link). */
    async changePassword(
      ctx: AccountContext,
      input: { current_password: string; new_password: string },
      meta: RequestMeta,
    ): Promise<{ sessions_ended: number }> {
      const account = await findAccount(db, accountIdOf(ctx))
      if (!account || !(await verifyPassword(input.current_password, account.password_hash))) {
        throw new AppError('password_incorrect')
      }
      const hash = await hashPassword(input.new_password, deps.passwordCost)
      return db.transaction().execute(async (trx) => {
        const now = clock.now()
        await updatePassword(trx, account.id, hash, now)
        const ended = await endOtherSessions(trx, account.id, ctx.sessionId, now)
        // A reset link issued before no longer stands for the account's password.
        await revokeOpenPasswordResets(trx, account.id, now)
        await recordAudit(trx, clock, {
          organizationId: isOperator(ctx) ? null : ctx.member.organization_id,
          actor: actorOf(ctx, meta),
          action: isOperator(ctx) ? 'operator.password_changed' : 'member.password_changed',
          subject: emailOf(ctx),
          details: { sessions_ended: ended },
        })
        return { sessions_ended: ended }
      })
    },
  }
}
