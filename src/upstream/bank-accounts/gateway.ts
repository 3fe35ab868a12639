import { Type } from 'typebox';
import Value from 'typebox/value';
import { parseJsonObject, postJson } from '../http.ts';
import type { BankAccountPortal } from './index.ts';

// The bank of live keys, through the operator's gateway (BANK_ACCOUNT_GATEWAY_URL):
//   POST {url}/login {credentials} → {"result":"CONNECTED","holderName":"…"}
//                                  | {"result":"FAILED","code":"…","message":"…"}
//   POST {url}/transactions {credentials, from, to}
//     → {"result":"LISTED","holderName":"…","balance":123,"lines":[{bookedDate, sequence,
//        bookedTime, direction, amount, balanceAfter, counterpartyName, memo, branch}, …]}
//     | {"result":"FAILED","code":"…","message":"…"}
// Anything else is `unavailable` (docs/bank-transactions.md § The live bank gateway).

const Text = (max: number) => Type.String({ minLength: 1, maxLength: max });
const Connected = Type.Object({ result: Type.Literal('CONNECTED'), holderName: Text(200) });
const Failed = Type.Object({ result: Type.Literal('FAILED'), code: Text(100), message: Text(500) });
const OptionalText = (max: number) => Type.Union([Type.String({ maxLength: max }), Type.Null()]);
const Won = Type.Integer({ minimum: -1e15, maximum: 1e15 });
const Line = Type.Object({
  bookedDate: Type.String({ pattern: '^[0-9]{4}-[0-9]{2}-[0-9]{2}$' }),
  sequence: Type.Integer({ minimum: 1, maximum: 1_000_000 }),
  bookedTime: Type.Union([Type.String({ pattern: '^([01][0-9]|2[0-3]):[0-5][0-9]:[0-5][0-9]$' }),
    Type.Null()]),
  direction: Type.Union([Type.Literal('DEPOSIT'), Type.Literal('WITHDRAWAL')]),
  amount: Type.Integer({ minimum: 1, maximum: 1e15 }),
  balanceAfter: Type.Union([Won, Type.Null()]),
  counterpartyName: OptionalText(200),
  memo: OptionalText(200),
  branch: OptionalText(100),
});
const Listed = Type.Object({ result: Type.Literal('LISTED'), holderName: Text(200),
  balance: Won, lines: Type.Array(Line, { maxItems: 200_000 }) });

// A statement of a year of a busy account fits in 64 MiB.
const STATEMENT_BYTES_MAX = 64 * 1024 * 1024;

export function createGatewayBankAccountPortal(options: { gatewayUrl: string;
  timeoutMs: number }): BankAccountPortal {
  const base = options.gatewayUrl.replace(/\/+$/, '');
  async function post(path: string, body: object, signal: AbortSignal, responseBytesMax: number) {
    try {
      const text = await postJson({ url: `${base}/${path}`, body, signal,
        timeoutMs: options.timeoutMs, responseBytesMax });
      return text === null ? null : parseJsonObject(text);
    } catch {
      return null;
    }
  }
  return {
    async login(credentials, signal) {
      const answer = await post('login', { credentials }, signal, 16_384);
      if (Value.Check(Connected, answer)) {
        return { kind: 'connected', holderName: answer.holderName };
      }
      if (Value.Check(Failed, answer)) {
        return { kind: 'failed', code: answer.code, message: answer.message };
      }
      return { kind: 'unavailable' };
    },

    async transactions(credentials, request, signal) {
      const answer = await post('transactions', { credentials, from: request.from,
        to: request.to }, signal, STATEMENT_BYTES_MAX);
      if (Value.Check(Listed, answer)) {
        return { kind: 'listed', holderName: answer.holderName, balance: answer.balance,
          lines: answer.lines };
      }
      if (Value.Check(Failed, answer)) {
        return { kind: 'failed', code: answer.code, message: answer.message };
      }
      return { kind: 'unavailable' };
    },
  };
}
