import { sql } from 'drizzle-orm';
import { bigint, boolean, check, index, pgTable, text, uniqueIndex } from 'drizzle-orm/pg-core';
import { createdAt, pagingSequence, timestampTz } from '../platform/db/columns.ts';
import { accounts } from '../platform/db/tables.ts';

// The dashboard's tables (docs/dashboard.md): the people who sign in, their sessions, the
// single-use links mailed to them, and the audit log of what they did.

export const dashboardUsers = pgTable(
  'dashboard_users',
  {
    id: text('id').primaryKey(),
    accountId: text('account_id').notNull().references(() => accounts.id),
    // Kept as typed, compared in lower case (the unique index): one person, one sign-in.
    email: text('email').notNull(),
    // scrypt, with its parameters and salt (src/dashboard/users/password.ts). Never the password.
    passwordHash: text('password_hash').notNull(),
    role: text('role').notNull(),
    // Runs the etax server: sees the operator's pages (`etax user create --operator`).
    operator: boolean('operator').notNull().default(false),
    locale: text('locale').notNull().default('ko'),
    createdAt: createdAt(),
    passwordChangedAt: timestampTz('password_changed_at').notNull().defaultNow(),
    // The TOTP second factor (src/dashboard/two-factor/): the secret sealed with the encryption
    // key (the user's id as context), once confirmed with a code; until then the one being set
    // up waits in `totp_pending_secret`.
    totpSecret: text('totp_secret'),
    totpPendingSecret: text('totp_pending_secret'),
    // The last 30-second step a code was accepted for: a code is refused a second time.
    totpLastStep: bigint('totp_last_step', { mode: 'number' }),
    // SHA-256 of each recovery code not used yet.
    recoveryCodeHashes: text('recovery_code_hashes').array().notNull()
      .default(sql`'{}'::text[]`),
  },
  (table) => [
    uniqueIndex('dashboard_users_email_unique').on(sql`lower(${table.email})`),
    index('dashboard_users_account_idx').on(table.accountId),
    check('dashboard_users_role_known',
      sql`${table.role} in ('owner', 'admin', 'developer', 'issuer', 'viewer')`),
    check('dashboard_users_locale_known', sql`${table.locale} in ('ko', 'en')`),
    check('dashboard_users_email_length', sql`char_length(${table.email}) between 3 and 254`),
  ],
);

export const dashboardSessions = pgTable(
  'dashboard_sessions',
  {
    // Names the session in the sessions list; not the credential.
    id: text('id').primaryKey(),
    // SHA-256 of the cookie's random value, hex. The value itself is never stored.
    tokenHash: text('token_hash').notNull(),
    userId: text('user_id').notNull().references(() => dashboardUsers.id, { onDelete: 'cascade' }),
    // The environment the session acts in, switched in the header.
    environment: text('environment').notNull().default('test'),
    createdAt: createdAt(),
    lastSeenAt: timestampTz('last_seen_at').notNull().defaultNow(),
    address: text('address'),
    userAgent: text('user_agent'),
    // The password was right and the second factor is still to be given: such a session opens
    // nothing but the code's page, for a few minutes.
    secondFactorPending: boolean('second_factor_pending').notNull().default(false),
    // An operator's session looking at another account read-only (the operator's pages): the
    // pages read that account as its Viewer would, and nothing is changed. Honoured only
    // while the user is an operator.
    viewingAccountId: text('viewing_account_id').references(() => accounts.id),
    // A secret to show once (a new API key, a webhook signing secret), sealed with the
    // encryption key, bound to the session: put here by the POST that made it and taken out by
    // the GET that shows it, so a reload or the back button shows it no more.
    shownOnce: text('shown_once'),
  },
  (table) => [
    uniqueIndex('dashboard_sessions_token_hash_unique').on(table.tokenHash),
    index('dashboard_sessions_user_idx').on(table.userId),
    check('dashboard_sessions_environment_known',
      sql`${table.environment} in ('test', 'live')`),
  ],
);

// Links mailed for a member's invitation or a password reset: single use, until expires_at.
export const dashboardUserTokens = pgTable(
  'dashboard_user_tokens',
  {
    // SHA-256 of the token in the link, hex.
    tokenHash: text('token_hash').primaryKey(),
    purpose: text('purpose').notNull(),
    accountId: text('account_id').notNull().references(() => accounts.id),
    // The user whose password is reset; null for an invitation, whose user does not exist yet.
    userId: text('user_id').references(() => dashboardUsers.id, { onDelete: 'cascade' }),
    email: text('email').notNull(),
    // The role an invitation gives.
    role: text('role'),
    createdAt: createdAt(),
    expiresAt: timestampTz('expires_at').notNull(),
    usedAt: timestampTz('used_at'),
  },
  (table) => [
    index('dashboard_user_tokens_account_idx').on(table.accountId),
    check('dashboard_user_tokens_purpose_known',
      sql`${table.purpose} in ('invitation', 'password_reset')`),
  ],
);

// What an Owner sets for everyone of the account: whether a second factor is required.
export const dashboardAccountSettings = pgTable('dashboard_account_settings', {
  accountId: text('account_id').primaryKey().references(() => accounts.id),
  twoFactorRequired: boolean('two_factor_required').notNull().default(false),
});

export const dashboardAuditEvents = pgTable(
  'dashboard_audit_events',
  {
    id: text('id').primaryKey(),
    accountId: text('account_id').notNull().references(() => accounts.id),
    // The environment the action touched; null for what belongs to the account (team, sign-in).
    environment: text('environment'),
    // Who did it: null for the CLI. The email stays when the user is removed.
    actorUserId: text('actor_user_id'),
    actorEmail: text('actor_email'),
    action: text('action').notNull(),
    // What it was done to: a key id, a user's email, …
    target: text('target'),
    address: text('address'),
    // The log's order: two actions recorded in the same instant (a password reset that also
    // clears the second factor) still show in the order they were recorded.
    sequence: pagingSequence(),
    createdAt: createdAt(),
  },
  (table) => [
    index('dashboard_audit_events_account_sequence_idx').on(table.accountId, table.sequence),
  ],
);
