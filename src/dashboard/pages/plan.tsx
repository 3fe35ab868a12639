import { PLANS, type Plan } from '../../platform/accounts/keys.ts';
import { minimumPlanOf, OPERATIONS, type Operation } from '../../platform/operations.ts';
import { planAtLeast } from '../../platform/plans.ts';
import { Section } from '../components.tsx';
import type { DashboardPage } from '../context.ts';
import { formatPoints } from '../format.ts';

// Plan: the account's plan and what each plan unlocks, read from the operation table (the
// same rows the API's plan check reads) with this server's prices. Changing the plan stays the
// operator's (`etax account plan`).

type OperationRow = { price?: string };

export const planPage: DashboardPage = {
  nav: { label: 'nav.plan', path: '/plan', section: 'account', permission: 'account.read' },
  routes: [{
    method: 'GET', path: '/plan', permission: 'account.read',
    async handle(ctx) {
      const { t } = ctx;
      const current = ctx.account.plan as Plan;
      const prices = ctx.services.platform.prices as Record<string, number>;
      const operations = Object.keys(OPERATIONS) as Operation[];
      return { kind: 'page', title: 'plan.title', body: (
        <>
          <p class="figure">{t('plan.current', { plan: current })}</p>
          <p>{t('plan.lead')}</p>
          <Section title={t('plan.title')} id="plans">
            {/* Wider than a phone: it scrolls sideways by itself, so it takes keyboard focus. */}
            <div class="table-wrap" tabIndex={0} role="region" aria-label={t('plan.title')}>
              <table>
                <thead><tr>
                  <th>{t('plan.operation')}</th><th class="num">{t('plan.price')}</th>
                  {PLANS.map((plan) => (
                    <th key={plan} aria-current={plan === current ? 'true' : undefined}>
                      {plan === current ? <strong>{plan} ✓</strong> : plan}
                    </th>
                  ))}
                </tr></thead>
                <tbody>
                  {operations.map((operation) => {
                    const priceRow = (OPERATIONS[operation] as OperationRow).price;
                    const minimum = minimumPlanOf(operation);
                    return (
                      <tr key={operation}>
                        <td><code>{operation}</code></td>
                        <td class="num">{priceRow === undefined ? t('plan.free')
                          : formatPoints(prices[priceRow] ?? 0)}</td>
                        {PLANS.map((plan) => {
                          const included = minimum === null || planAtLeast(plan, minimum);
                          return (
                            <td key={plan} title={t(included ? 'plan.included'
                              : 'plan.notIncluded')}>
                              {included ? '✓' : '—'}
                              <span class="sr-only">
                                {t(included ? 'plan.included' : 'plan.notIncluded')}
                              </span>
                            </td>
                          );
                        })}
                      </tr>
                    );
                  })}
                </tbody>
              </table>
            </div>
          </Section>
        </>
      ) };
    },
  }],
};
