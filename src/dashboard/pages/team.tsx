import { CardTable, Notice, PostForm, RedirectNotice, Section } from '../components.tsx';
import type { DashboardPage, Outcome, PageContext } from '../context.ts';
import { formatDateTime } from '../format.ts';
import type { MessageKey } from '../i18n/index.ts';
import { isRole, ROLES, type Role } from '../roles.ts';
import type { OpenInvitation } from '../links/service.ts';
import { UserInputError, type DashboardUser } from '../users/service.ts';
import { errorOutcome } from './errors.tsx';

// Team: the account's members, their roles changed and members removed by Owner and Admin.
// Nobody changes their own role or removes themselves (so an account always keeps the owner
// who acts), and only an Owner gives or takes the Owner role or touches an Owner. A changed
// role ends the member's sessions: they sign in again under the new role.

const NOTICES = ['team.roleChanged', 'team.removed', 'team.invited', 'team.invitationCanceled',
  'team.twoFactorWasReset'] as const satisfies readonly MessageKey[];

// The roles the session may give: Owner only by an Owner.
const givableRoles = (ctx: PageContext) =>
  ROLES.filter((role) => role !== 'owner' || ctx.may('account.own'));

const INVITE_PROBLEMS: Record<string, MessageKey> = {
  emailInvalid: 'team.emailInvalid',
  emailTaken: 'team.emailTaken',
};

function InviteSection({ ctx, invitations, email }: { ctx: PageContext;
  invitations: OpenInvitation[]; email?: string }) {
  const { t } = ctx;
  return (
    <Section title={t('team.invite')} id="invite">
      <p class="muted">{t('team.inviteLead')}</p>
      <PostForm ctx={ctx} action="/team/invite" class="row">
        <label>{t('team.email')}
          <input type="email" name="email" required maxLength={254} value={email ?? ''} />
        </label>
        <label>{t('team.role')}
          <select name="role">
            {givableRoles(ctx).map((role) => (
              <option key={role} value={role} selected={role === 'viewer'}>
                {t(`role.${role}`)}
              </option>
            ))}
          </select>
        </label>
        <button type="submit" class="primary">{t('team.inviteSubmit')}</button>
      </PostForm>
      <h3>{t('team.invitations')}</h3>
      {invitations.length === 0 ? <p class="muted">{t('team.invitationsNone')}</p> : (
        <CardTable head={<>
          <th>{t('team.email')}</th><th>{t('team.role')}</th><th>{t('team.expires')}</th>
          <th><span class="sr-only">{t('team.cancelInvitation')}</span></th>
        </>}>
          {invitations.map((invitation) => (
            <tr key={invitation.email}>
              <td data-label={t('team.email')}>{invitation.email}</td>
              <td data-label={t('team.role')}>{t(`role.${invitation.role}`)}</td>
              <td data-label={t('team.expires')} class="nowrap">
                {formatDateTime(invitation.expiresAt)}
              </td>
              <td data-label="">
                <PostForm ctx={ctx} action="/team/invitations/cancel">
                  <input type="hidden" name="email" value={invitation.email} />
                  <button type="submit" class="secondary"
                    aria-label={`${t('team.cancelInvitation')} ${invitation.email}`}>
                    {t('team.cancelInvitation')}
                  </button>
                </PostForm>
              </td>
            </tr>
          ))}
        </CardTable>
      )}
    </Section>
  );
}

// Why the session may not change or remove this member, or null.
function refusal(ctx: PageContext, member: DashboardUser, newRole?: Role): MessageKey | null {
  if (member.userId === ctx.session.user.userId) return 'team.notYourself';
  const touchesOwner = member.role === 'owner' || newRole === 'owner';
  if (touchesOwner && !ctx.may('account.own')) return 'team.ownerOnly';
  return null;
}

function MemberRow({ ctx, member }: { ctx: PageContext; member: DashboardUser }) {
  const { t } = ctx;
  const manageable = refusal(ctx, member) === null;
  const roles = givableRoles(ctx);
  return (
    <tr>
      <td data-label={t('team.email')}>{member.email}</td>
      <td data-label={t('team.role')}>
        {manageable ? (
          <PostForm ctx={ctx} action={`/team/${member.userId}/role`} class="row">
            <label><span class="sr-only">{t('team.role')} {member.email}</span>
              <select name="role">
                {roles.map((role) => (
                  <option key={role} value={role} selected={role === member.role}>
                    {t(`role.${role}`)}
                  </option>
                ))}
              </select>
            </label>
            <button type="submit" class="secondary">{t('team.changeRole')}</button>
          </PostForm>
        ) : t(`role.${member.role}`)}
      </td>
      <td data-label={t('team.twoFactor')}>
        {member.twoFactor ? t('team.twoFactorOn') : t('team.twoFactorOff')}
        {member.twoFactor && manageable && (
          <PostForm ctx={ctx} action={`/team/${member.userId}/two-factor/reset`}
            confirm={t('team.twoFactorResetConfirm')}>
            <button type="submit" class="secondary"
              aria-label={`${t('team.twoFactorReset')} ${member.email}`}>
              {t('team.twoFactorReset')}
            </button>
          </PostForm>
        )}
      </td>
      <td data-label={t('team.since')} class="nowrap">{formatDateTime(member.createdAt)}</td>
      <td data-label="">
        {manageable && (
          <PostForm ctx={ctx} action={`/team/${member.userId}/remove`}
            confirm={t('team.removeConfirm')}>
            <button type="submit" class="danger"
              aria-label={`${t('team.remove')} ${member.email}`}>{t('team.remove')}</button>
          </PostForm>
        )}
      </td>
    </tr>
  );
}

async function teamPage(ctx: PageContext, problem?: MessageKey, status = 200,
  inviteEmail?: string): Promise<Outcome> {
  const { t } = ctx;
  const members = await ctx.services.users.listUsers(ctx.scope.accountId);
  const invitations = await ctx.services.links.openInvitations(ctx.scope.accountId);
  return { kind: 'page', title: 'team.title', status, body: (
    <>
      <RedirectNotice ctx={ctx} known={NOTICES} />
      {problem && <Notice kind="error">{t(problem)}</Notice>}
      <p>{t('team.lead')}</p>
      <Section title={t('team.members')} id="members">
        <CardTable head={<>
          <th>{t('team.email')}</th><th>{t('team.role')}</th><th>{t('team.twoFactor')}</th>
          <th>{t('team.since')}</th><th><span class="sr-only">{t('team.remove')}</span></th>
        </>}>
          {members.map((member) => <MemberRow key={member.userId} ctx={ctx} member={member} />)}
        </CardTable>
      </Section>
      <InviteSection ctx={ctx} invitations={invitations} email={inviteEmail} />
    </>
  ) };
}

// The member the path names, with the refusal that applies, or the outcome that ends here.
async function memberFor(ctx: PageContext, newRole?: Role):
  Promise<DashboardUser | Outcome> {
  const member = await ctx.services.users.findMember(ctx.scope.accountId,
    ctx.params.userId ?? '');
  if (member === null) return errorOutcome(ctx.t, 'notFound', 404);
  const refused = refusal(ctx, member, newRole);
  return refused === null ? member : teamPage(ctx, refused, 403);
}

const isOutcome = (value: DashboardUser | Outcome): value is Outcome => 'kind' in value;

export const teamPageModule: DashboardPage = {
  nav: { label: 'nav.team', path: '/team', section: 'account', permission: 'team.manage' },
  routes: [
    { method: 'GET', path: '/team', permission: 'team.manage', handle: (ctx) => teamPage(ctx) },
    {
      // Mails a single-use link; the invitee becomes a member when they choose a password.
      method: 'POST', path: '/team/invite', permission: 'team.manage',
      async handle(ctx) {
        const email = (ctx.form.get('email') ?? '').slice(0, 300);
        const role = ctx.form.get('role') ?? '';
        if (!isRole(role)) return teamPage(ctx, 'team.roleInvalid', 400, email);
        if (role === 'owner' && !ctx.may('account.own')) {
          return teamPage(ctx, 'team.ownerOnly', 403, email);
        }
        try {
          const invited = await ctx.services.links.invite({ accountId: ctx.scope.accountId,
            accountName: ctx.account.name, email, role, invitedBy: ctx.session.user.email });
          await ctx.audit('user.invited', `${invited.email} → ${role}`);
        } catch (error) {
          if (!(error instanceof UserInputError)) throw error;
          return teamPage(ctx, INVITE_PROBLEMS[error.problem] ?? 'team.emailInvalid', 400, email);
        }
        return { kind: 'redirect', to: '/dashboard/team?notice=team.invited' };
      },
    },
    {
      method: 'POST', path: '/team/invitations/cancel', permission: 'team.manage',
      async handle(ctx) {
        const email = (ctx.form.get('email') ?? '').slice(0, 300);
        const canceled = await ctx.services.links.cancelInvitations(ctx.scope.accountId, email);
        if (canceled === 0) return errorOutcome(ctx.t, 'notFound', 404);
        await ctx.audit('user.invitationCanceled', email);
        return { kind: 'redirect', to: '/dashboard/team?notice=team.invitationCanceled' };
      },
    },
    {
      method: 'POST', path: '/team/:userId/role', permission: 'team.manage',
      async handle(ctx) {
        const role = ctx.form.get('role') ?? '';
        if (!isRole(role)) return teamPage(ctx, 'team.roleInvalid', 400);
        const member = await memberFor(ctx, role);
        if (isOutcome(member)) return member;
        await ctx.services.users.changeRole(ctx.scope.accountId, member.userId, role);
        await ctx.services.sessions.endAll(member.userId);
        await ctx.audit('user.roleChanged', `${member.email} → ${role}`);
        return { kind: 'redirect', to: '/dashboard/team?notice=team.roleChanged' };
      },
    },
    {
      // For a member who lost their phone and their recovery codes: they sign in with the
      // password alone and set the factor up again (at once, if the account requires it).
      method: 'POST', path: '/team/:userId/two-factor/reset', permission: 'team.manage',
      async handle(ctx) {
        const member = await memberFor(ctx);
        if (isOutcome(member)) return member;
        if (await ctx.services.twoFactor.disable(member.userId)) {
          await ctx.services.sessions.endAll(member.userId);
          await ctx.audit('user.twoFactorReset', member.email);
        }
        return { kind: 'redirect', to: '/dashboard/team?notice=team.twoFactorWasReset' };
      },
    },
    {
      method: 'POST', path: '/team/:userId/remove', permission: 'team.manage',
      async handle(ctx) {
        const member = await memberFor(ctx);
        if (isOutcome(member)) return member;
        await ctx.services.users.removeUser(ctx.scope.accountId, member.userId);
        await ctx.audit('user.removed', member.email);
        return { kind: 'redirect', to: '/dashboard/team?notice=team.removed' };
      },
    },
  ],
};
