import { ApiError } from '../../platform/errors.ts';
import { sequenceCursors } from '../../platform/cursor.ts';
import { AUDIT_ACTIONS, listAudit, type AuditAction } from '../audit/store.ts';
import { CardTable, Section } from '../components.tsx';
import type { DashboardPage } from '../context.ts';
import { formatDateTime } from '../format.ts';
import type { MessageKey } from '../i18n/index.ts';
import { errorOutcome } from './errors.tsx';

// The audit log of the account: who did what from the dashboard or the CLI, newest first, 50
// at a time. Owner and Admin only.

const PAGE_SIZE = 50;
// The link to the next page carries a sealed cursor, as the API's lists do: the log's sequence
// is shared by every account, so in clear it would tell how much the others did.
const AUDIT_LIST = 'dashboard.audit';

const actionLabel = (action: string): MessageKey | null =>
  ((AUDIT_ACTIONS as readonly string[]).includes(action)
    ? `audit.action.${action as AuditAction}` : null);

export const auditPage: DashboardPage = {
  nav: { label: 'nav.audit', path: '/audit', section: 'account', permission: 'audit.read' },
  routes: [{
    method: 'GET', path: '/audit', permission: 'audit.read',
    async handle(ctx) {
      const { t } = ctx;
      const cursors = sequenceCursors(ctx.services.cursors, AUDIT_LIST);
      let before: number | undefined;
      try {
        before = cursors.decode(ctx.scope, ctx.query.get('before') ?? undefined);
      } catch (error) {
        if (error instanceof ApiError && error.code === 'INVALID_REQUEST') {
          return errorOutcome(t, 'notFound', 404);
        }
        throw error;
      }
      const rows = await listAudit(ctx.services.platform.database.db, ctx.scope.accountId,
        PAGE_SIZE + 1, before);
      const { page, nextCursor } = cursors.pageOf(ctx.scope, rows, PAGE_SIZE);
      return { kind: 'page', title: 'audit.title', body: (
        <Section title={t('audit.title')} id="audit">
          {page.length === 0 ? <p class="muted">{t('audit.none')}</p> : (
            <CardTable head={<>
              <th>{t('audit.when')}</th><th>{t('audit.who')}</th><th>{t('audit.action')}</th>
              <th>{t('audit.target')}</th><th>{t('audit.environment')}</th>
              <th>{t('audit.address')}</th>
            </>}>
              {page.map((row) => {
                const label = actionLabel(row.action);
                return (
                  <tr key={row.id}>
                    <td data-label={t('audit.when')} class="nowrap">
                      {formatDateTime(row.createdAt)}
                    </td>
                    <td data-label={t('audit.who')}>{row.actorEmail ?? t('audit.cli')}</td>
                    <td data-label={t('audit.action')}>{label ? t(label) : row.action}</td>
                    <td data-label={t('audit.target')}>{row.target ?? ''}</td>
                    <td data-label={t('audit.environment')}>
                      {row.environment === 'test' || row.environment === 'live'
                        ? t(`env.${row.environment}`) : ''}
                    </td>
                    <td data-label={t('audit.address')}>{row.address ?? ''}</td>
                  </tr>
                );
              })}
            </CardTable>
          )}
          {nextCursor !== null && <p><a href={`/dashboard/audit?before=${nextCursor}`}>
            {t('points.more')}</a></p>}
        </Section>
      ) };
    },
  }],
};
