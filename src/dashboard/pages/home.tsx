import { ENVIRONMENTS } from '../../platform/accounts/keys.ts';
import { Section } from '../components.tsx';
import type { DashboardPage } from '../context.ts';
import { formatPoints } from '../format.ts';

// Home: the balances of both environments (available and reserved), whatever environment the
// session acts in, since a user tops up or asks for live points from here.

export const homePage: DashboardPage = {
  nav: { label: 'nav.home', path: '/', section: 'account', permission: 'account.read' },
  routes: [{
    method: 'GET', path: '/', permission: 'account.read',
    async handle(ctx) {
      const balances = await Promise.all(ENVIRONMENTS.map(async (environment) => ({
        environment,
        balance: await ctx.services.platform.points.getBalance({
          accountId: ctx.scope.accountId, environment }),
      })));
      return { kind: 'page', title: 'home.title', body: (
        <Section title={ctx.t('home.balances')} id="balances">
          <div class="grid two">
            {balances.map(({ environment, balance }) => (
              <div key={environment} class={`balance ${environment}`}>
                <h3 class="label">{ctx.t(`env.${environment}`)}</h3>
                <p class="figure">{formatPoints(balance.available)}</p>
                <p class="label">{ctx.t('home.available')}</p>
                <p class="muted">{ctx.t('home.reserved')} {formatPoints(balance.reserved)}</p>
              </div>
            ))}
          </div>
        </Section>
      ) };
    },
  }],
};
