// verifyWebhookSignature accepts a header made by our signer with any of the given secrets
// inside the tolerance, and refuses a wrong secret, a changed body, an old or future timestamp,
// and malformed headers.
import { describe, expect, it } from 'vitest';
import { signatureHeader } from '../../../src/areas/webhooks/signature.ts';
import { verifyWebhookSignature } from '@etax/sdk';

const NOW = new Date('2026-03-01T00:00:00.000Z');
const T = Math.floor(NOW.getTime() / 1000);
const PAYLOAD = '{"id":"evt_1","type":"TAX_INVOICE_ISSUANCE_SUCCESS","data":{"a":"한글"}}';

function header(secrets: string[], timestampSeconds = T) {
  return signatureHeader({ secrets, timestampSeconds, payload: PAYLOAD });
}

describe('verifyWebhookSignature', () => {
  it('accepts the signature of the secret, as a string or a buffer body', () => {
    const signed = header(['whsec_a']);
    expect(verifyWebhookSignature({ payload: PAYLOAD, header: signed, secrets: 'whsec_a',
      now: NOW })).toBe(true);
    expect(verifyWebhookSignature({ payload: Buffer.from(PAYLOAD), header: signed,
      secrets: ['whsec_a'], now: NOW })).toBe(true);
  });

  it('accepts either secret of a rotation, and a header signed by both', () => {
    const signed = header(['whsec_new', 'whsec_old']);
    for (const secrets of ['whsec_new', 'whsec_old', ['whsec_x', 'whsec_old']]) {
      expect(verifyWebhookSignature({ payload: PAYLOAD, header: signed, secrets, now: NOW }))
        .toBe(true);
    }
  });

  it('refuses a wrong secret and a changed body', () => {
    const signed = header(['whsec_a']);
    expect(verifyWebhookSignature({ payload: PAYLOAD, header: signed, secrets: 'whsec_b',
      now: NOW })).toBe(false);
    expect(verifyWebhookSignature({ payload: `${PAYLOAD} `, header: signed, secrets: 'whsec_a',
      now: NOW })).toBe(false);
  });

  it('accepts a timestamp 300 s away and refuses 301 s, in either direction', () => {
    for (const offset of [300, -300]) {
      expect(verifyWebhookSignature({ payload: PAYLOAD, header: header(['s'], T + offset),
        secrets: 's', now: NOW })).toBe(true);
    }
    for (const offset of [301, -301]) {
      expect(verifyWebhookSignature({ payload: PAYLOAD, header: header(['s'], T + offset),
        secrets: 's', now: NOW })).toBe(false);
    }
    expect(verifyWebhookSignature({ payload: PAYLOAD, header: header(['s'], T - 1000),
      secrets: 's', now: NOW, toleranceSeconds: 1000 })).toBe(true);
  });

  it.each([
    ['no header', undefined],
    ['an empty header', ''],
    ['no timestamp', header(['s']).replace(/^t=\d+,/, '')],
    ['no signature', `t=${T}`],
    ['a short signature', `t=${T},v1=abcd`],
    ['a non-numeric timestamp', header(['s']).replace(/^t=\d+/, 't=soon')],
    ['garbage', 'v1'],
  ])('refuses %s', (_name, value) => {
    expect(verifyWebhookSignature({ payload: PAYLOAD, header: value, secrets: 's', now: NOW }))
      .toBe(false);
  });
});
