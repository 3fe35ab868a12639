import type { SealingKey } from '../../domain/sealed-box.ts';
import type { Db } from '../../platform/db/connect.ts';
import * as store from './store.ts';

// A secret shown once (docs/dashboard.md § What every page sends): a new API key, a webhook's
// signing secret. The POST that makes it keeps it with the session, sealed, and redirects; the
// GET that shows it takes it out in the same statement that reads it. A reload, the back
// button or a second tab then find nothing to show, no secret is ever in an address, and the
// POST is never sent twice by a reload (which would make a second key).

export type OnceSecret =
  | { kind: 'apiKey'; label: string; secret: string }
  | { kind: 'webhookSecret'; endpointId: string; secret: string };

// Bound to the session: a box copied to another session's row does not open.
const context = (sessionId: string) => `dashboard-shown-once:${sessionId}`;

export function createShownOnce({ db, sealing }: { db: Db; sealing: SealingKey }) {
  return {
    async put(sessionId: string, value: OnceSecret): Promise<void> {
      await store.putShownOnce(db, sessionId,
        sealing.seal(Buffer.from(JSON.stringify(value), 'utf8'), context(sessionId)));
    },
    // The secret of `kind` (and, for a webhook's, of that endpoint), once; null when there is
    // none (already shown) or it is another one (left alone: its own page shows it).
    async take<K extends OnceSecret['kind']>(sessionId: string, kind: K,
      matches: (value: Extract<OnceSecret, { kind: K }>) => boolean = () => true):
      Promise<Extract<OnceSecret, { kind: K }> | null> {
      const sealed = await store.takeShownOnce(db, sessionId);
      if (sealed === null) return null;
      const value = JSON.parse(sealing.open(sealed, context(sessionId)).toString('utf8')) as
        OnceSecret;
      if (value.kind !== kind || !matches(value as Extract<OnceSecret, { kind: K }>)) {
        await store.putShownOnce(db, sessionId, sealed);
        return null;
      }
      return value as Extract<OnceSecret, { kind: K }>;
    },
  };
}

export type ShownOnce = ReturnType<typeof createShownOnce>;
