import type { Outcome } from '../context.ts';
import { translator, type Translate } from '../i18n/index.ts';
import { PlainLayout } from '../layout.tsx';

// The dashboard's error pages: inside the layout, in the session's language, for a signed-in
// user; alone, in Korean with the English under it, otherwise.

export type ErrorKind = 'notFound' | 'forbidden' | 'csrf' | 'unavailable' | 'internal' |
  'notOperator' | 'twoFactorRequired' | 'readOnlyView';

const ko = translator('ko');
const en = translator('en');

export function StandaloneErrorPage(props: { kind: ErrorKind;
  values?: Record<string, string> | undefined }) {
  return (
    <PlainLayout locale="ko" title={ko(`error.${props.kind}.title`)} appName={ko('app.name')}>
      <p>{ko(`error.${props.kind}`, props.values)}</p>
      <p lang="en" class="muted">{en(`error.${props.kind}`, props.values)}</p>
      <p><a href="/dashboard">{ko('error.back')}</a></p>
    </PlainLayout>
  );
}

// The outcome of an error inside the layout.
export function errorOutcome(t: Translate, kind: ErrorKind, status: number,
  values?: Record<string, string>): Outcome {
  return { kind: 'page', title: `error.${kind}.title`, status,
    body: (
      <div class="card">
        <p>{t(`error.${kind}`, values)}</p>
        <p><a href="/dashboard">{t('error.back')}</a></p>
      </div>
    ) };
}
