import { parseJsonObject, parseRejection, postJson } from '../http.ts';
import {
  APPROVAL_NUMBER_PATTERN,
  TRANSMISSION_UNAVAILABLE,
  type InvoiceTransmitter,
  type TransmissionResult,
} from './index.ts';

// The tax authority of live keys. Transmitting e-tax invoices needs an accredited system (ASP),
// which has no public contract, so etax talks to an operator-run gateway
// (TAX_INVOICE_GATEWAY_URL) over a small JSON contract, documented in docs/tax-invoices.md:
//   POST {TAX_INVOICE_GATEWAY_URL}/taxInvoices:transmit  {issuanceKey, writeDate, supplierNumber,
//     recipientNumber, approvalNumber, signedDocument, signature, certificate,
//     signerRandomNumber}
//   200 {"result":"ACCEPTED","ntsTransactionId":"<the approval number>"}
//     | {"result":"REJECTED","code":"…","message":"…"}
// etax is the issuing system: the number is the one it signed (approvalNumber), and an ACCEPTED
// answer with another is outside the contract. Anything else (another status or body, a network
// error, a timeout) is `unavailable`.

const RESPONSE_BYTES_MAX = 16_384;

export function parseTransmissionAnswer(text: string): TransmissionResult | null {
  const answer = parseJsonObject(text);
  if (answer === null) return null;
  if (answer.result === 'ACCEPTED' && typeof answer.ntsTransactionId === 'string' &&
    APPROVAL_NUMBER_PATTERN.test(answer.ntsTransactionId)) {
    return { kind: 'accepted', ntsTransactionId: answer.ntsTransactionId };
  }
  return parseRejection(answer);
}

export function createGatewayTransmitter(options: {
  gatewayUrl: string;
  timeoutMs: number;
}): InvoiceTransmitter {
  const url = `${options.gatewayUrl.replace(/\/+$/, '')}/taxInvoices:transmit`;
  return {
    async transmit(request, signal) {
      try {
        const text = await postJson({ url, body: request, signal, timeoutMs: options.timeoutMs,
          responseBytesMax: RESPONSE_BYTES_MAX });
        const answer = text === null ? null : parseTransmissionAnswer(text);
        if (answer?.kind === 'accepted' && request.approvalNumber !== null &&
          answer.ntsTransactionId !== request.approvalNumber) return TRANSMISSION_UNAVAILABLE;
        return answer ?? TRANSMISSION_UNAVAILABLE;
      } catch {
        return TRANSMISSION_UNAVAILABLE;
      }
    },
  };
}
