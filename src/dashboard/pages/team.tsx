import { Notice, PostForm, RedirectNotice, Section } from '../components.tsx';
import type { DashboardPage, Outcome, PageContext } from '../context.ts';
import { formatDateTime } from '../format.ts';
import type { MessageKey } from '../i18n/index.ts';
import { isRole, ROLES, type Role } from '../roles.ts';
import type { DashboardUser } from '../users/service.ts';
import { errorOutcome } from './errors.tsx';

// Team: the account's members, their roles changed and members removed by Owner and Admin.
// Nobody changes their own role or removes themselves (so an account always keeps the owner
// who acts), and only an Owner gives or takes the Owner role or touches an Owner. A changed
// role ends the member's sessions: they sign in again under the new role.

const NOTICES = ['team.roleChanged', 'team.removed'] as const satisfies readonly MessageKey[];

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
  const roles = ROLES.filter((role) => role !== 'owner' || ctx.may('account.own'));
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

async function teamPage(ctx: PageContext, problem?: MessageKey, status = 200): Promise<Outcome> {
  const { t } = ctx;
  const members = await ctx.services.users.listUsers(ctx.scope.accountId);
  return { kind: 'page', title: 'team.title', status, body: (
    <>
      <RedirectNotice ctx={ctx} known={NOTICES} />
      {problem && <Notice kind="error">{t(problem)}</Notice>}
      <p>{t('team.lead')}</p>
      <Section title={t('team.members')} id="members">
        <div class="table-wrap">
          <table class="cards">
            <thead><tr>
              <th>{t('team.email')}</th><th>{t('team.role')}</th><th>{t('team.since')}</th>
              <th><span class="sr-only">{t('team.remove')}</span></th>
            </tr></thead>
            <tbody>
              {members.map((member) => <MemberRow key={member.userId} ctx={ctx} member={member} />)}
            </tbody>
          </table>
        </div>
      </Section>
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
