import { AUDIT_ACTIONS, listAudit, type AuditAction } from '../audit/store.ts';
import { CardTable, Section } from '../components.tsx';
import type { DashboardPage } from '../context.ts';
import { formatDateTime } from '../format.ts';
import type { MessageKey } from '../i18n/index.ts';
import { errorOutcome } from './errors.tsx';

// The audit log of the account: who did what from the dashboard or the CLI, newest first, 50
// at a time. Owner and Admin only.

const PAGE_SIZE = 50;
const CURSOR = /^(\d{4}-\d{2}-\d{2}T[\d:.]+Z)_(aud_[A-Za-z0-9_-]{1,40})$/;

const actionLabel = (action: string): MessageKey | null =>
  ((AUDIT_ACTIONS as readonly string[]).includes(action)
    ? `audit.action.${action as AuditAction}` : null);

export const auditPage: DashboardPage = {
  nav: { label: 'nav.audit', path: '/audit', section: 'account', permission: 'audit.read' },
  routes: [{
    method: 'GET', path: '/audit', permission: 'audit.read',
    async handle(ctx) {
      const { t } = ctx;
      const raw = ctx.query.get('before');
      const cursor = raw === null ? null : CURSOR.exec(raw);
      if (raw !== null && cursor === null) return errorOutcome(t, 'notFound', 404);
      const rows = await listAudit(ctx.services.platform.database.db, ctx.scope.accountId,
        PAGE_SIZE, cursor ? { createdAt: new Date(cursor[1]!), id: cursor[2]! } : undefined);
      const last = rows.length === PAGE_SIZE ? rows.at(-1) : undefined;
      return { kind: 'page', title: 'audit.title', body: (
        <Section title={t('audit.title')} id="audit">
          {rows.length === 0 ? <p class="muted">{t('audit.none')}</p> : (
            <CardTable head={<>
              <th>{t('audit.when')}</th><th>{t('audit.who')}</th><th>{t('audit.action')}</th>
              <th>{t('audit.target')}</th><th>{t('audit.environment')}</th>
              <th>{t('audit.address')}</th>
            </>}>
              {rows.map((row) => {
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
          {last && <p><a href={`/dashboard/audit?before=${encodeURIComponent(
            `${last.createdAt.toISOString()}_${last.id}`)}`}>{t('points.more')}</a></p>}
        </Section>
      ) };
    },
  }],
};
