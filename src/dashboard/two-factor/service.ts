import { createHash, randomBytes, randomInt } from 'node:crypto';
import type { SealingKey } from '../../domain/sealed-box.ts';
import type { Db } from '../../platform/db/connect.ts';
import type { ResealCount } from '../../platform/reseal.ts';
import { resealColumn } from '../../platform/reseal.ts';
import * as store from './store.ts';

// The optional TOTP second factor (RFC 6238, the codes of any authenticator app) and its
// recovery codes (docs/dashboard.md § Second factor). The secret is sealed at rest with the
// encryption key that seals every other secret, bound to the user's id; it is shown once, while
// it is set up, and turned on only by a code made from it. A code is accepted once (the step it
// was made for is recorded), within one 30-second step either side of the server's clock.
// Recovery codes are ten random codes shown once when the factor is turned on; only their
// SHA-256 is kept, and each works once in place of a code.

const ISSUER = 'etax';
const PERIOD_SECONDS = 30;
const DIGITS = 6;
// One step either side: a phone's clock a little off still works.
const WINDOW_STEPS = 1;
const SECRET_BYTES = 20;
const RECOVERY_CODE_COUNT = 10;
// Ten characters of an alphabet without look-alikes (no 0/O, 1/l/I), in two groups of five:
// about 50 bits each.
const RECOVERY_ALPHABET = '23456789abcdefghjkmnpqrstuvwxyz';
const RECOVERY_CODE_LENGTH = 10;

type Deps = { db: Db; sealing: SealingKey; now: () => Date };

// otpauth is imported when a second factor is first used, not when the dashboard loads.
const otpauth = () => import('otpauth');

// A box is bound to its user's id: copied to another user's row it does not open.
const sealContext = (userId: string) => userId;

function newRecoveryCode(): string {
  let code = '';
  for (let index = 0; index < RECOVERY_CODE_LENGTH; index += 1) {
    code += RECOVERY_ALPHABET[randomInt(RECOVERY_ALPHABET.length)];
  }
  return `${code.slice(0, 5)}-${code.slice(5)}`;
}

// What a recovery code is compared by: without case, spaces or the dash people may type or not.
const recoveryCodeHash = (code: string) => createHash('sha256')
  .update(code.toLowerCase().replace(/[\s-]/g, '')).digest('hex');

const isTotpCode = (text: string) => new RegExp(`^\\d{${DIGITS}}$`).test(text);

export type Enrolment = { secret: string; uri: string; qrSvg: string };

export function createTwoFactorService(deps: Deps) {
  const { db, sealing } = deps;

  async function totpOf(base32: string, email: string) {
    const { Secret, TOTP } = await otpauth();
    return new TOTP({ issuer: ISSUER, label: email, algorithm: 'SHA1', digits: DIGITS,
      period: PERIOD_SECONDS, secret: Secret.fromBase32(base32) });
  }

  // The step a code was made for, or null when it matches none within the window.
  async function stepOf(sealedSecret: string, userId: string, email: string, code: string) {
    if (!isTotpCode(code)) return null;
    const base32 = sealing.open(sealedSecret, sealContext(userId)).toString('utf8');
    const totp = await totpOf(base32, email);
    const timestamp = deps.now().getTime();
    const delta = totp.validate({ token: code, timestamp, window: WINDOW_STEPS });
    return delta === null ? null : Math.floor(timestamp / 1000 / PERIOD_SECONDS) + delta;
  }

  // Starts setting up a second factor: a new secret, kept pending, and what the user's app
  // needs to learn it (shown once).
  async function begin(userId: string, email: string): Promise<Enrolment | null> {
    const current = await store.findSecrets(db, userId);
    if (current === null || current.secret !== null) return null;
    const { Secret } = await otpauth();
    const secret = new Secret({ buffer: randomBytes(SECRET_BYTES).buffer as ArrayBuffer }).base32;
    await store.setPendingSecret(db, userId,
      sealing.seal(Buffer.from(secret, 'utf8'), sealContext(userId)));
    const uri = (await totpOf(secret, email)).toString();
    const qrcode = await import('qrcode');
    const qrSvg = await qrcode.toString(uri, { type: 'svg', errorCorrectionLevel: 'M',
      margin: 2 });
    return { secret, uri, qrSvg };
  }

  // Turns the pending secret on when `code` was made from it; answers the recovery codes
  // (shown once), or null when the code is wrong or nothing was being set up.
  async function confirm(userId: string, email: string, code: string): Promise<string[] | null> {
    const current = await store.findSecrets(db, userId);
    if (current === null || current.pending === null || current.secret !== null) return null;
    const step = await stepOf(current.pending, userId, email, code.trim());
    if (step === null) return null;
    const codes = Array.from({ length: RECOVERY_CODE_COUNT }, newRecoveryCode);
    const enabled = await store.enable(db, userId, current.pending, step,
      codes.map(recoveryCodeHash));
    return enabled ? codes : null;
  }

  // Checks the second factor of a sign-in: a code from the app, or a recovery code (used up).
  async function verify(userId: string, email: string, input: string):
    Promise<'code' | 'recoveryCode' | null> {
    const text = input.trim();
    const current = await store.findSecrets(db, userId);
    if (current === null || current.secret === null) return null;
    if (isTotpCode(text)) {
      const step = await stepOf(current.secret, userId, email, text);
      return step !== null && await store.claimStep(db, userId, step) ? 'code' : null;
    }
    if (text.length > 40) return null;
    return await store.useRecoveryCode(db, userId, recoveryCodeHash(text)) ? 'recoveryCode'
      : null;
  }

  async function status(userId: string) {
    const current = await store.findSecrets(db, userId);
    return { enabled: current?.secret != null, recoveryCodesLeft: current?.recoveryCodes ?? 0 };
  }

  return {
    begin,
    confirm,
    verify,
    status,
    disable: (userId: string) => store.disable(db, userId),
    setRequired: (accountId: string, required: boolean) =>
      store.setRequired(db, accountId, required),
  };
}

export type TwoFactorService = ReturnType<typeof createTwoFactorService>;

// `etax reseal`: the TOTP secrets sealed again with the current key.
export async function resealTwoFactorSecrets(db: Db, sealing: SealingKey):
  Promise<ResealCount[]> {
  return [await resealColumn(sealing, {
    name: 'dashboard_users.totp_secret',
    nextBatch: async (afterKey, limit) => (await store.sealedSecrets(db, afterKey, limit))
      .flatMap((row) => (row.box === null ? [] : [{ key: sealContext(row.key), box: row.box }])),
    replace: (key, box, resealed) => store.replaceSecret(db, key, box, resealed),
  })];
}
