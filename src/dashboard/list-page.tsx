import type { ComponentChildren, VNode } from 'preact';
import { looksLikeCursor } from '../platform/cursor.ts';
import type { Outcome, PageContext } from './context.ts';

// What the list pages share (docs/dashboard.md § How it is built): their filters live in the
// address, so a reload or a shared link shows the same list; the address is read against the
// values the form offers (anything else is a 400, never a query); the filter form sends them
// with htmx, which swaps the table alone and pushes the address; the table ends with the link
// to the next page of the same filters; an htmx request is answered with the table alone.

// Whether a value of the address is one the form offers.
export type FilterRule = (value: string) => boolean;

const DATE = /^\d{4}-(0[1-9]|1[0-2])-(0[1-9]|[12]\d|3[01])$/;
// A calendar day as `<input type="date">` sends it (not 2026-02-30).
export const isDay: FilterRule = (value) => DATE.test(value) && !Number.isNaN(Date.parse(value));
export const oneOf = (list: readonly string[]): FilterRule => (value) => list.includes(value);
// A cursor's shape; whether this server wrote it for this list is the service's to say.
export const isCursor: FilterRule = looksLikeCursor;

// Names in the address that are not filters: the notice a redirect asks for.
const NOT_FILTERS = new Set(['notice']);

// The filters of the address by their rules, or null when one is not a value the form offers
// or names no filter. An empty value is no filter.
export function readFilters<K extends string>(query: URLSearchParams,
  rules: Readonly<Record<K, FilterRule>>): Partial<Record<K, string>> | null {
  const filters: Partial<Record<K, string>> = {};
  for (const [name, value] of query) {
    if (value === '' || NOT_FILTERS.has(name)) continue;
    if (!Object.hasOwn(rules, name) || !rules[name as K](value)) return null;
    filters[name as K] = value;
  }
  return filters;
}

// The address's query of the values set (an absent, null or empty one is left out), in the
// order given: a page of the same filters, or an export of them.
export function filterQuery(values: Readonly<Record<string, string | null | undefined>>): string {
  const query = new URLSearchParams();
  for (const [name, value] of Object.entries(values)) {
    if (value !== undefined && value !== null && value !== '') query.set(name, value);
  }
  return query.toString();
}

// The form of a list's filters: a plain GET without a script, with htmx the table alone
// (`#target`) swapped and the address pushed.
export function FilterForm(props: { path: string; target: string; class?: string;
  children: ComponentChildren }) {
  const path = `/dashboard${props.path}`;
  return (
    <form method="get" action={path} class={props.class ?? 'row'} role="search" hx-get={path}
      hx-target={`#${props.target}`} hx-swap="outerHTML" hx-push-url="true">
      {props.children}
    </form>
  );
}

// A filter of the form chosen from a list: the first option, the empty value, filters nothing.
export function ChoiceFilter<T extends string>(props: { label: string; name: string;
  all: string; options: readonly T[]; chosen: string | null | undefined;
  text: (option: T) => string }) {
  return (
    <label>{props.label}
      <select name={props.name}>
        <option value="">{props.all}</option>
        {props.options.map((option) => (
          <option key={option} value={option} selected={props.chosen === option}>
            {props.text(option)}
          </option>
        ))}
      </select>
    </label>
  );
}

// The link to the next page, when there is one.
export function NextPage(props: { href: string | null; label: string }) {
  if (props.href === null) return null;
  return <p><a href={props.href} rel="next">{props.label}</a></p>;
}

// The answer of a list page: the table alone for htmx (the filter form swaps it), else the
// whole page around it.
export function listAnswer(ctx: PageContext, table: VNode, page: () => Promise<Outcome> | Outcome):
  Promise<Outcome> | Outcome {
  return ctx.request.headers['hx-request'] === 'true' ? { kind: 'fragment', body: table } : page();
}
