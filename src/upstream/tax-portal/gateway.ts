import { Type } from 'typebox';
import Value from 'typebox/value';
import { APPROVAL_NUMBER_PATTERN_SOURCE } from '../../domain/approval-number.ts';
import { parseJsonObject, postJson } from '../http.ts';
import {
  PORTAL_UNAVAILABLE,
  type CollectResult,
  type PortalLoginResult,
  type TaxPortal,
} from './index.ts';

// The portal of live keys. The tax authority's web portal has no public API, so etax talks to an
// operator-run gateway (TAX_PORTAL_GATEWAY_URL) over a small JSON contract
// (docs/revenue-expense.md § The live portal gateway):
//   POST {url}/login    {credentials}  → {"result":"CONNECTED","businessName":"…"}
//                                       | {"result":"FAILED","code":"…","message":"…"}
//   POST {url}/collect  {credentials, months, previousCollections}
//                                       → {"result":"COLLECTED","invoices":[PortalInvoice…]}
//                                       | {"result":"FAILED","code":"…","message":"…"}
// Anything else (another status or shape, a network error, a timeout) is `unavailable`.

const RESPONSE_BYTES_MAX = 16 * 1024 * 1024;
const Text = (max: number) => Type.String({ minLength: 1, maxLength: max,
  pattern: '^[^\\u0000-\\u001f]*$' });
const Party = Type.Object({ businessRegistrationNumber: Type.String({ pattern: '^[0-9]{10,13}$' }),
  name: Text(200) });
const Won = Type.Integer({ minimum: -1e14, maximum: 1e14 });
const DateText = Type.String({ pattern: '^[0-9]{4}-[0-9]{2}-[0-9]{2}$' });
// As the tax authority makes them: the serial may hold lower-case letters. One number outside
// this would make the whole collection `unavailable`.
const ApprovalNumber = Type.String({ pattern: APPROVAL_NUMBER_PATTERN_SOURCE });
const PortalInvoiceSchema = Type.Object({
  direction: Type.Union([Type.Literal('SALES'), Type.Literal('PURCHASE')]),
  approvalNumber: ApprovalNumber,
  writeDate: DateText, issueDate: DateText, supplier: Party, recipient: Party,
  supplyCost: Won, tax: Won, totalAmount: Won,
  taxType: Type.Union([Type.Literal('TAXABLE'), Type.Literal('ZERO_RATED'),
    Type.Literal('TAX_FREE')]),
  amendment: Type.Union([Type.Null(), Type.Object({ reason: Type.Integer({ minimum: 1,
    maximum: 6 }), originalApprovalNumber: ApprovalNumber })]),
  status: Type.Union([Type.Literal('ISSUED'), Type.Literal('TRANSMITTED')]),
  late: Type.Boolean(),
});
const Failed = Type.Object({ result: Type.Literal('FAILED'), code: Text(100), message: Text(500) });
const Connected = Type.Object({ result: Type.Literal('CONNECTED'), businessName: Text(200) });
const Collected = Type.Object({ result: Type.Literal('COLLECTED'),
  invoices: Type.Array(PortalInvoiceSchema, { maxItems: 100_000 }) });

export function createGatewayTaxPortal(options: { gatewayUrl: string; timeoutMs: number }):
  TaxPortal {
  const base = options.gatewayUrl.replace(/\/+$/, '');
  async function call(path: string, body: unknown, signal: AbortSignal) {
    try {
      const text = await postJson({ url: `${base}${path}`, body, signal,
        timeoutMs: options.timeoutMs, responseBytesMax: RESPONSE_BYTES_MAX });
      return text === null ? null : parseJsonObject(text);
    } catch {
      return null;
    }
  }
  return {
    async login(credentials, signal): Promise<PortalLoginResult> {
      const answer = await call('/login', { credentials }, signal);
      if (Value.Check(Connected, answer)) {
        return { kind: 'connected', businessName: answer.businessName };
      }
      if (Value.Check(Failed, answer)) {
        return { kind: 'failed', code: answer.code, message: answer.message };
      }
      return PORTAL_UNAVAILABLE;
    },
    async collect(request, signal): Promise<CollectResult> {
      const answer = await call('/collect', request, signal);
      if (Value.Check(Collected, answer)) return { kind: 'collected', invoices: answer.invoices };
      if (Value.Check(Failed, answer)) {
        return { kind: 'failed', code: answer.code, message: answer.message };
      }
      return PORTAL_UNAVAILABLE;
    },
  };
}
