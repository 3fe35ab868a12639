import { Type } from 'typebox';
import Value from 'typebox/value';
import { parseJsonObject, postJson } from '../http.ts';
import type { BankAccountPortal } from './index.ts';

// The bank of live keys, through the operator's gateway (BANK_ACCOUNT_GATEWAY_URL):
//   POST {url}/login {credentials} → {"result":"CONNECTED","holderName":"…"}
//                                  | {"result":"FAILED","code":"…","message":"…"}
// Anything else is `unavailable`.

const Text = (max: number) => Type.String({ minLength: 1, maxLength: max });
const Connected = Type.Object({ result: Type.Literal('CONNECTED'), holderName: Text(200) });
const Failed = Type.Object({ result: Type.Literal('FAILED'), code: Text(100), message: Text(500) });

export function createGatewayBankAccountPortal(options: { gatewayUrl: string;
  timeoutMs: number }): BankAccountPortal {
  const url = `${options.gatewayUrl.replace(/\/+$/, '')}/login`;
  return {
    async login(credentials, signal) {
      let answer: unknown = null;
      try {
        const text = await postJson({ url, body: { credentials }, signal,
          timeoutMs: options.timeoutMs, responseBytesMax: 16_384 });
        answer = text === null ? null : parseJsonObject(text);
      } catch {
        answer = null;
      }
      if (Value.Check(Connected, answer)) {
        return { kind: 'connected', holderName: answer.holderName };
      }
      if (Value.Check(Failed, answer)) {
        return { kind: 'failed', code: answer.code, message: answer.message };
      }
      return { kind: 'unavailable' };
    },
  };
}
