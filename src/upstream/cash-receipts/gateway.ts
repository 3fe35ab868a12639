import { parseJsonObject, parseRejection, postJson } from '../http.ts';
import {
  APPROVAL_UNAVAILABLE,
  CASH_RECEIPT_APPROVAL_NUMBER_PATTERN,
  TRANSMISSION_UNAVAILABLE,
  type ApprovalResult,
  type CashReceiptAuthority,
} from './index.ts';

// The tax authority of live keys. Issuing cash receipts needs an accredited system with no
// public contract, so etax talks to an operator-run gateway (CASH_RECEIPT_GATEWAY_URL) over a
// small JSON contract, documented in docs/cash-receipts.md:
//   POST {url}/cashReceipts:approve   ApprovalRequest
//   200 {"result":"APPROVED","approvalNumber":"<9 digits>"}
//     | {"result":"REJECTED","code":"…","message":"…"}
//   POST {url}/cashReceipts:transmit  {issuanceKey, approvalNumber}
//   200 {"result":"TRANSMITTED"}
// Anything else (another status or body, a network error, a timeout) is `unavailable`.

const RESPONSE_BYTES_MAX = 16_384;

export function parseApprovalAnswer(text: string): ApprovalResult | null {
  const answer = parseJsonObject(text);
  if (answer === null) return null;
  if (answer.result === 'APPROVED' && typeof answer.approvalNumber === 'string' &&
    CASH_RECEIPT_APPROVAL_NUMBER_PATTERN.test(answer.approvalNumber)) {
    return { kind: 'approved', approvalNumber: answer.approvalNumber };
  }
  return parseRejection(answer);
}

export function createGatewayCashReceiptAuthority(options: {
  gatewayUrl: string;
  timeoutMs: number;
}): CashReceiptAuthority {
  const base = options.gatewayUrl.replace(/\/+$/, '');
  const call = (path: string, body: unknown, signal: AbortSignal) => postJson({
    url: `${base}/${path}`, body, signal, timeoutMs: options.timeoutMs,
    responseBytesMax: RESPONSE_BYTES_MAX });
  return {
    async approve(request, signal) {
      try {
        const text = await call('cashReceipts:approve', request, signal);
        return (text === null ? null : parseApprovalAnswer(text)) ?? APPROVAL_UNAVAILABLE;
      } catch {
        return APPROVAL_UNAVAILABLE;
      }
    },
    async transmit(request, signal) {
      try {
        const text = await call('cashReceipts:transmit', request, signal);
        const answer = text === null ? null : parseJsonObject(text);
        return answer?.result === 'TRANSMITTED' ? { kind: 'transmitted' }
          : TRANSMISSION_UNAVAILABLE;
      } catch {
        return TRANSMISSION_UNAVAILABLE;
      }
    },
  };
}
