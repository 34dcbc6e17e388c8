import Type, { type Static } from 'typebox'
import { ROLES } from '../../db/schema.ts'
import { StringEnum, Text, Timestamp, Uuid } from '../../http/schemas.ts'
import { PASSWORD_MAX, PASSWORD_MIN } from './limits.ts'

/**
 * The dashboard API's schemas: they validate requests, shape answers, make
 * its OpenAPI document, and type the web app's client (web/src/lib/api.ts
 * imports these types).
 */
const closed = { additionalProperties: false } as const

export const Role = StringEnum(ROLES, { description: 'owner, developer or viewer' })
export const Email = Type.String({ format: 'email', minLength: 3, maxLength: 320 })
export const Password = Text({
  minLength: PASSWORD_MIN,
  maxLength: PASSWORD_MAX,
  description: `${PASSWORD_MIN} to ${PASSWORD_MAX} characters`,
})
/** Invitation tokens are 43 base62 characters; anything else cannot be one. */
export const InvitationToken = Type.String({ minLength: 1, maxLength: 100 })

export const Member = Type.Object(
  {
    id: Uuid,
    email: Type.String(),
    role: Role,
    organization: Type.Object({ id: Uuid, name: Type.String() }),
    created_at: Timestamp,
  },
  { $id: 'DashboardMember', title: 'DashboardMember' },
)
export type Member = Static<typeof Member>

export const Invitation = Type.Object({
  id: Uuid,
  email: Type.String(),
  role: Role,
  created_at: Timestamp,
  expires_at: Timestamp,
})
export type Invitation = Static<typeof Invitation>

export const Session = Type.Object({
  id: Uuid,
  current: Type.Boolean({ description: 'The session of this request.' }),
  user_agent: Type.String({ description: 'The User-Agent header the session signed in with, as sent.' }),
  browser: Type.Optional(
    Type.String({
      description:
        'The browser and system read from user_agent, in words ("Chrome 131 on Linux"); absent when none can be read (curl, a script).',
    }),
  ),
  address: Type.String(),
  created_at: Timestamp,
  last_seen_at: Timestamp,
  expires_at: Timestamp,
})
export type Session = Static<typeof Session>

export const Operator = Type.Object(
  { id: Uuid, email: Type.String(), created_at: Timestamp },
  { $id: 'DashboardOperator', title: 'DashboardOperator' },
)
export type Operator = Static<typeof Operator>

const AccountKind = StringEnum(['member', 'operator'] as const, {
  description: 'member: of an organization (member is set); operator: of the platform (operator is set).',
})
/** Who is signed in: exactly one of member and operator is set, as kind says. */
const SignedInAccount = {
  kind: AccountKind,
  member: Type.Union([Member, Type.Null()]),
  operator: Type.Union([Operator, Type.Null()]),
}

export const SessionState = Type.Object({
  data: Type.Object({
    csrf_token: Type.String({ description: 'Send it as X-CSRF-Token on every state-changing call.' }),
    kind: Type.Union([AccountKind, Type.Null()], { description: 'null when nobody is signed in.' }),
    member: Type.Union([Member, Type.Null()]),
    operator: Type.Union([Operator, Type.Null()]),
  }),
})
export type SessionState = Static<typeof SessionState>

export const SignInBody = Type.Object(
  { email: Email, password: Type.String({ maxLength: PASSWORD_MAX }) },
  closed,
)
export const SignedIn = Type.Object({ data: Type.Object(SignedInAccount) })
export type SignedIn = Static<typeof SignedIn>

export const InvitationLookupBody = Type.Object({ token: InvitationToken }, closed)
export const InvitationPreview = Type.Object({
  data: Type.Object({
    kind: AccountKind,
    email: Type.String(),
    role: Type.Union([Role, Type.Null()], { description: 'null for an operator invitation' }),
    organization: Type.Union([Type.Object({ id: Uuid, name: Type.String() }), Type.Null()]),
    expires_at: Timestamp,
  }),
})
export type InvitationPreview = Static<typeof InvitationPreview>
export const AcceptInvitationBody = Type.Object({ token: InvitationToken, password: Password }, closed)

export const PasswordResetLookupBody = Type.Object({ token: InvitationToken }, closed)
export const PasswordResetPreview = Type.Object({
  data: Type.Object({ email: Type.String(), expires_at: Timestamp }),
})
export const UsePasswordResetBody = Type.Object({ token: InvitationToken, password: Password }, closed)
export const PasswordResetCreated = Type.Object({
  data: Type.Object({
    password_reset: Type.Object({
      email: Type.String(),
      created_at: Timestamp,
      expires_at: Timestamp,
      replaced: Type.Boolean({ description: 'An unused earlier link of the account stopped working.' }),
    }),
    url: Type.String({
      description: 'The link to pass on; it is shown once, works once and ends every session of the account.',
    }),
  }),
})
export type PasswordResetCreated = Static<typeof PasswordResetCreated>

export const PasswordChangeBody = Type.Object(
  { current_password: Type.String({ maxLength: PASSWORD_MAX }), new_password: Password },
  closed,
)
export const SessionsEnded = Type.Object({ data: Type.Object({ sessions_ended: Type.Integer() }) })
export const SessionList = Type.Object({ data: Type.Array(Session) })
export const MemberList = Type.Object({ data: Type.Array(Member) })
export const MemberAnswer = Type.Object({ data: Type.Object({ member: Member }) })
export const RoleBody = Type.Object({ role: Role }, closed)
export const MemberParams = Type.Object({ member_id: Type.String() })

export const InviteBody = Type.Object({ email: Email, role: Role }, closed)
export const OperatorInviteBody = Type.Object({ email: Email, role: Type.Optional(Role) }, closed)
export const InvitationCreated = Type.Object({
  data: Type.Object({
    invitation: Invitation,
    url: Type.String({ description: 'The link to pass on; it is shown once and works once.' }),
  }),
})
export type InvitationCreated = Static<typeof InvitationCreated>
export const InvitationList = Type.Object({ data: Type.Array(Invitation) })
export const InvitationParams = Type.Object({ invitation_id: Type.String() })
export const InvitationRevoked = Type.Object({
  data: Type.Object({ invitation: Type.Object({ ...Invitation.properties, revoked_at: Timestamp }) }),
})

export const Done = Type.Object({ data: Type.Object({ ok: Type.Boolean() }) })

export const OperatorList = Type.Object({ data: Type.Array(Operator) })
export const OperatorParams = Type.Object({ operator_id: Type.String() })
export const OperatorRemoved = Type.Object({
  data: Type.Object({
    operator: Operator,
    sessions_ended: Type.Integer({ description: 'Its open sessions, ended with it.' }),
  }),
})

/** An invitation to become an operator: no organization, no role. */
export const OperatorInvitation = Type.Object({
  id: Uuid,
  email: Type.String(),
  created_at: Timestamp,
  expires_at: Timestamp,
})
export type OperatorInvitation = Static<typeof OperatorInvitation>
export const InviteOperatorBody = Type.Object({ email: Email }, closed)
export const OperatorInvitationList = Type.Object({ data: Type.Array(OperatorInvitation) })
export const OperatorInvitationCreated = Type.Object({
  data: Type.Object({
    invitation: OperatorInvitation,
    url: Type.String({ description: 'The link to pass on; it is shown once and works once.' }),
  }),
})
export type OperatorInvitationCreated = Static<typeof OperatorInvitationCreated>
export const OperatorInvitationRevoked = Type.Object({
  data: Type.Object({
    invitation: Type.Object({ ...OperatorInvitation.properties, revoked_at: Timestamp }),
  }),
})

/** The console's invitation of an organization's owner. */
export const OwnerInviteBody = Type.Object({ email: Email }, closed)
