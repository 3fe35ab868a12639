import { ENVIRONMENTS, type Environment } from '../../platform/accounts/keys.ts';
import type { DashboardPage } from '../context.ts';
import { safeReturnPath } from '../return-path.ts';
import { clearSessionCookie } from '../http.ts';
import { isLocale } from '../i18n/index.ts';

// What the header's controls post: sign out, the test/live switch and the language switch.
// Each acts on the session or its user only, so every role may use them.

const isEnvironment = (value: unknown): value is Environment =>
  typeof value === 'string' && (ENVIRONMENTS as readonly string[]).includes(value);

export const sessionControls: DashboardPage = {
  routes: [
    {
      method: 'POST', path: '/sign-out', permission: 'account.read', beforeSecondFactor: true,
      whileViewing: true,
      async handle(ctx) {
        await ctx.services.sessions.end(ctx.session.token);
        await ctx.audit('user.signedOut');
        clearSessionCookie(ctx.request, ctx.reply);
        return { kind: 'redirect', to: '/dashboard/sign-in?notice=signedOut' };
      },
    },
    {
      method: 'POST', path: '/environment', permission: 'account.read', beforeSecondFactor: true,
      whileViewing: true,
      async handle(ctx) {
        const environment = ctx.form.get('environment');
        if (isEnvironment(environment)) {
          await ctx.services.sessions.setEnvironment(ctx.session.sessionId, environment);
        }
        return { kind: 'redirect', to: safeReturnPath(ctx.form.get('return')) };
      },
    },
    {
      method: 'POST', path: '/language', permission: 'account.read', beforeSecondFactor: true,
      whileViewing: true,
      async handle(ctx) {
        const locale = ctx.form.get('locale');
        if (isLocale(locale)) await ctx.services.users.setLocale(ctx.session.user.userId, locale);
        return { kind: 'redirect', to: safeReturnPath(ctx.form.get('return')) };
      },
    },
  ],
};
