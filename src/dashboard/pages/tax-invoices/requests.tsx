import type { TaxInvoiceView } from '../../../areas/tax-invoices/index.ts';
import { CardTable, Section } from '../../components.tsx';
import type { Outcome, PageContext } from '../../context.ts';
import { formatDateTime, formatWon } from '../../format.ts';
import { RequestDecisions } from './detail.tsx';
import { StatusBadge } from './shared.tsx';

// Reverse issuance (역발행): the requests waiting for a decision and the ones decided lately.
// Every supplier a request names is an issuer of this account, and the requester is this
// account too, so a request waiting here is both one this account must approve or refuse and
// one it sent and may withdraw; each action is the one on the request's own page.

const SHOWN = 50;

function RequestRow({ ctx, row }: { ctx: PageContext; row: TaxInvoiceView }) {
  const { t } = ctx;
  const base = `/tax-invoices/${row.issuanceKey}`;
  const may = ctx.may('documents.issue') && row.status === 'REQUESTED';
  return (
    <tr>
      <td data-label={t('taxInvoices.col.writeDate')}>
        <a href={`/dashboard${base}`}>{row.invoice.date}</a></td>
      <td data-label={t('taxInvoices.doc.supplier')}>{row.invoice.supplier.organizationName}</td>
      <td data-label={t('taxInvoices.col.recipient')}>{row.invoice.supplied.organizationName}</td>
      <td data-label={t('taxInvoices.col.total')} class="num">{formatWon(row.totals.total)}</td>
      <td data-label={t('taxInvoices.col.status')}>
        <StatusBadge ctx={ctx} status={row.status} /></td>
      <td data-label={t('taxInvoices.issueDeadline')}>{row.issueDeadline}</td>
      <td data-label={t('taxInvoices.actions')}>
        {may && (
          <div class="stack"><RequestDecisions ctx={ctx} base={base} /></div>
        )}
      </td>
    </tr>
  );
}

function RequestTable({ ctx, rows }: { ctx: PageContext; rows: TaxInvoiceView[] }) {
  const { t } = ctx;
  if (rows.length === 0) return <p class="muted">{t('taxInvoices.requests.none')}</p>;
  return (
    <CardTable head={<>
      <th>{t('taxInvoices.col.writeDate')}</th><th>{t('taxInvoices.doc.supplier')}</th>
      <th>{t('taxInvoices.col.recipient')}</th><th class="num">{t('taxInvoices.col.total')}</th>
      <th>{t('taxInvoices.col.status')}</th><th>{t('taxInvoices.issueDeadline')}</th>
      <th>{t('taxInvoices.actions')}</th>
    </>}>
      {rows.map((row) => <RequestRow key={row.issuanceKey} ctx={ctx} row={row} />)}
    </CardTable>
  );
}

export async function requestsOutcome(ctx: PageContext): Promise<Outcome> {
  const { t } = ctx;
  const { taxInvoices } = ctx.services.areas;
  const waiting = await taxInvoices.browse({ scope: ctx.scope, limit: SHOWN,
    filters: { issuanceType: 'REVERSE', statuses: ['REQUESTED'] } });
  const decided = await taxInvoices.browse({ scope: ctx.scope, limit: SHOWN,
    filters: { issuanceType: 'REVERSE', statuses: ['APPROVED', 'REFUSED', 'REQUEST_CANCELED',
      'PENDING', 'ISSUED', 'TRANSMITTING', 'TRANSMITTED', 'FAILED', 'CANCELED'] } });
  return { kind: 'page', title: 'taxInvoices.requests', body: (
    <>
      <p class="muted"><a href="/dashboard/tax-invoices">{t('taxInvoices.backToList')}</a></p>
      <p>{t('taxInvoices.requests.lead')}</p>
      <Section title={t('taxInvoices.requests.waiting')} id="waiting">
        <RequestTable ctx={ctx} rows={waiting.taxInvoices} />
      </Section>
      <Section title={t('taxInvoices.requests.decided')} id="decided">
        <RequestTable ctx={ctx} rows={decided.taxInvoices} />
        <p class="muted">{t('taxInvoices.requests.updated',
          { at: formatDateTime(ctx.now()) })}</p>
      </Section>
    </>
  ) };
}
