import type { ComponentChildren } from 'preact';
import { ASSET_PATHS } from './assets.ts';
import type { NavSection, PageContext } from './context.ts';
import type { Locale, MessageKey, Translate } from './i18n/index.ts';
import { PostForm } from './components.tsx';

// The page around every signed-in page: the header (account, the test/live switch, language,
// sign out), the banner that says which environment the session acts in, the navigation, and
// the page's own content. Mobile first: below 900 px the navigation is a row of links above
// the content, from 900 px a column beside it.

export type NavItem = { label: MessageKey; path: string; section: NavSection };

const SECTION_TITLES: Record<NavSection, MessageKey> = {
  issuing: 'nav.section.issuing',
  records: 'nav.section.records',
  account: 'nav.section.account',
  developers: 'nav.section.developers',
  you: 'nav.section.you',
  operator: 'nav.section.operator',
};

// htmx's settings: no inline styles (the CSP allows none), no eval, requests to this server only.
const HTMX_CONFIG = JSON.stringify({ includeIndicatorStyles: false, allowEval: false,
  allowScriptTags: false, selfRequestsOnly: true, historyCacheSize: 0 });

function Document(props: { locale: Locale; title: string; children: ComponentChildren;
  csrf?: string }) {
  return (
    <html lang={props.locale}>
      <head>
        <meta charset="utf-8" />
        <meta name="viewport" content="width=device-width, initial-scale=1" />
        <meta name="htmx-config" content={HTMX_CONFIG} />
        <title>{props.title}</title>
        {/* No icon: keeps browsers from asking for /favicon.ico, which this server has not. */}
        <link rel="icon" href="data:," />
        <link rel="stylesheet" href={ASSET_PATHS.stylesheet} />
        <script src={ASSET_PATHS.htmx} defer></script>
        <script src={ASSET_PATHS.script} type="module"></script>
      </head>
      <body hx-headers={props.csrf === undefined ? undefined
        : JSON.stringify({ 'X-CSRF-Token': props.csrf })}>
        {props.children}
      </body>
    </html>
  );
}

function EnvironmentSwitch({ ctx }: { ctx: PageContext }) {
  const other = ctx.scope.environment === 'test' ? 'live' : 'test';
  return (
    <PostForm ctx={ctx} action="/environment" class="env-switch">
      <input type="hidden" name="environment" value={other} />
      <input type="hidden" name="return" value={returnPath(ctx)} />
      <span class={`env-pill ${ctx.scope.environment}`}>
        {ctx.t(`env.${ctx.scope.environment}`)}
      </span>
      <button type="submit" class="link">{ctx.t(`header.switchTo.${other}`)}</button>
    </PostForm>
  );
}

// Where a switch in the header returns to: the page it was pressed on.
function returnPath(ctx: PageContext): string {
  const path = ctx.request.url.split('?')[0] ?? '/dashboard';
  return ctx.request.method === 'GET' ? path : '/dashboard';
}

function Header({ ctx }: { ctx: PageContext }) {
  const other = ctx.locale === 'ko' ? 'en' : 'ko';
  return (
    <header class="top">
      <a class="brand" href="/dashboard">etax</a>
      <span class="account" title={ctx.t('header.account')}>{ctx.account.name}</span>
      <EnvironmentSwitch ctx={ctx} />
      <div class="top-end">
        <PostForm ctx={ctx} action="/language">
          <input type="hidden" name="locale" value={other} />
          <input type="hidden" name="return" value={returnPath(ctx)} />
          <button type="submit" class="link" lang={other}>{ctx.t('header.language')}</button>
        </PostForm>
        <span class="user">{ctx.session.user.email}</span>
        <PostForm ctx={ctx} action="/sign-out">
          <button type="submit" class="link">{ctx.t('header.signOut')}</button>
        </PostForm>
      </div>
    </header>
  );
}

// On every page while an operator looks at an account read-only: whose account, that nothing
// can be changed, and the way back.
function ViewingBanner({ ctx }: { ctx: PageContext }) {
  const { viewing } = ctx.session;
  if (viewing === null) return null;
  return (
    <div class="banner viewing" role="note" id="viewing-banner">
      <span>{ctx.t('viewing.banner', { name: viewing.name, id: viewing.accountId })}</span>
      <PostForm ctx={ctx} action="/operator/view/end">
        <button type="submit" class="link">{ctx.t('viewing.back')}</button>
      </PostForm>
    </div>
  );
}

function Navigation(props: { t: Translate; items: NavItem[]; current: string }) {
  const sections = [...new Set(props.items.map((item) => item.section))];
  return (
    <nav class="side" aria-label={props.t('nav.label')}>
      {sections.map((section) => (
        <div class="nav-section" key={section}>
          <h2>{props.t(SECTION_TITLES[section])}</h2>
          <ul>
            {props.items.filter((item) => item.section === section).map((item) => {
              const href = `/dashboard${item.path === '/' ? '' : item.path}`;
              const current = props.current === href;
              return (
                <li key={item.path}>
                  <a href={href} aria-current={current ? 'page' : undefined}>
                    {props.t(item.label)}
                  </a>
                </li>
              );
            })}
          </ul>
        </div>
      ))}
    </nav>
  );
}

export function Layout(props: { ctx: PageContext; title: MessageKey; nav: NavItem[];
  children: ComponentChildren }) {
  const { ctx } = props;
  const environment = ctx.scope.environment;
  const title = ctx.t(props.title);
  return (
    <Document locale={ctx.locale} title={`${title} · ${ctx.t('app.name')}`} csrf={ctx.csrf}>
      <a class="skip" href="#content">{ctx.t('app.skipToContent')}</a>
      <Header ctx={ctx} />
      <div class={`banner ${environment}`} role="note">
        <strong>{ctx.t(`env.${environment}`)}</strong> {ctx.t(`banner.${environment}`)}
      </div>
      <ViewingBanner ctx={ctx} />
      <div class="frame">
        <Navigation t={ctx.t} items={props.nav} current={ctx.request.url.split('?')[0] ?? ''} />
        <main id="content">
          <h1>{title}</h1>
          {props.children}
        </main>
      </div>
    </Document>
  );
}

// A page shown without a session: sign-in, and errors before one is known.
export function PlainLayout(props: { locale: Locale; title: string; appName: string;
  children: ComponentChildren }) {
  return (
    <Document locale={props.locale} title={`${props.title} · ${props.appName}`}>
      <main id="content" class="plain">
        <p class="brand-line"><span class="brand">etax</span></p>
        <h1>{props.title}</h1>
        {props.children}
      </main>
    </Document>
  );
}
