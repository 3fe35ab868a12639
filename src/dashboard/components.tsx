import type { ComponentChildren } from 'preact';
import type { PageContext } from './context.ts';
import type { MessageKey } from './i18n/index.ts';

// Pieces every page uses. Values are always children or attributes, which Preact escapes:
// no page builds HTML from strings.

// A form that posts to the dashboard with the page's CSRF token.
// `once`: the dashboard's script sends it at most once (a double click sends nothing more).
export function PostForm(props: { ctx: Pick<PageContext, 'csrf'>; action: string;
  class?: string; confirm?: string; once?: boolean; children: ComponentChildren }) {
  return (
    <form method="post" action={`/dashboard${props.action}`} class={props.class}
      data-confirm={props.confirm} data-once={props.once === true ? '' : undefined}>
      <input type="hidden" name="_csrf" value={props.ctx.csrf} />
      {props.children}
    </form>
  );
}

export function Notice(props: { kind: 'success' | 'error' | 'info'; children: ComponentChildren }) {
  return (
    <div class={`notice ${props.kind}`} role={props.kind === 'error' ? 'alert' : 'status'}>
      {props.children}
    </div>
  );
}

// The notice a redirect asked for (`?notice=<key>`), when it is one the page knows.
export function RedirectNotice(props: { ctx: PageContext; known: readonly MessageKey[] }) {
  const key = props.ctx.query.get('notice');
  const found = props.known.find((known) => known === key);
  return found === undefined ? null : <Notice kind="success">{props.ctx.t(found)}</Notice>;
}

export function Section(props: { title: string; id?: string; children: ComponentChildren }) {
  const headingId = `${props.id ?? props.title.replace(/\W+/g, '-').toLowerCase()}-title`;
  return (
    <section class="card" aria-labelledby={headingId}>
      <h2 id={headingId}>{props.title}</h2>
      {props.children}
    </section>
  );
}

// A table whose rows become cards on a phone (each cell names its column in `data-label`), in a
// box that scrolls sideways when the table is wider than the page. `head` is the header row's
// cells, the children the body's rows.
export function CardTable(props: { head: ComponentChildren; id?: string; caption?: string;
  children: ComponentChildren }) {
  return (
    <div class="table-wrap">
      <table class="cards" id={props.id}>
        {props.caption !== undefined && <caption class="visually-hidden">{props.caption}</caption>}
        <thead><tr>{props.head}</tr></thead>
        <tbody>{props.children}</tbody>
      </table>
    </div>
  );
}
