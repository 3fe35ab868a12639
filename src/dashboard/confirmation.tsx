import type { PageContext } from './context.ts';
import { formatPoints } from './format.ts';

// The dashboard's one rule for a typed confirmation (docs/dashboard.md § Live confirmation): a
// mutation in live (issue, cancel, amend, approve, refuse, withdraw, request a charged document
// or lookup, connect, register or change an issuer) is made only when the person typed LIVE in
// the form's box; in test nothing is typed. One fixed word in both languages: it is read, not
// translated, so a habit of pressing Enter is not enough. Every form shows the box through
// LiveConfirmation and every route checks it with liveConfirmed before the service runs.

const LIVE_PHRASE = 'LIVE';
// The form field the phrase is typed in.
const CONFIRM_FIELD = 'confirm';

// The box a mutation's form carries: in live, the phrase to type; in both environments, what it
// costs when it costs points.
export function LiveConfirmation(props: { ctx: PageContext; points?: number }) {
  const { ctx, points } = props;
  const { t } = ctx;
  const live = ctx.scope.environment === 'live';
  const cost = points === undefined ? null : (
    <p class="cost">{t(live ? 'confirm.costLive' : 'confirm.cost',
      { points: formatPoints(points) })}</p>
  );
  if (!live) return cost === null ? null : <div class="confirmation test">{cost}</div>;
  return (
    <fieldset class="confirm">
      <legend>{t('confirm.liveHint')}</legend>
      {cost}
      <label>{t('confirm.live', { phrase: LIVE_PHRASE })}
        <input type="text" name={CONFIRM_FIELD} required autocomplete="off" spellcheck={false}
          pattern={LIVE_PHRASE} />
      </label>
    </fieldset>
  );
}

// Whether a POST may act: always in test; in live only with the phrase typed.
export const liveConfirmed = (ctx: PageContext) => ctx.scope.environment !== 'live' ||
  (ctx.form.get(CONFIRM_FIELD) ?? '').trim() === LIVE_PHRASE;
