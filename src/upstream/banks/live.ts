import { parseJsonObject, postJson } from '../http.ts';
import {
  UNAVAILABLE,
  type BankAdapter,
  type HolderLookup,
  type HolderLookupResult,
} from './index.ts';

// The bank network of live keys. No public bank-network contract exists, so etax talks to an
// operator-run gateway (BANK_GATEWAY_URL) over a small JSON contract, documented in
// docs/bank-account-holders.md:
//   POST {BANK_GATEWAY_URL}/holders:inquire  {"bankCode":"004","accountNumber":"1234567890"}
//   200 {"result":"FOUND","holderName":"홍길동"} | {"result":"NOT_FOUND"|"CLOSED"|"AMOUNT_REQUIRED"}
// Anything else (another status, another body, a network error, a timeout) is `unavailable`.
// Without a gateway every lookup is `unavailable`, so live keys get 503 LOOKUP_UNAVAILABLE.

// A gateway answer is a few dozen bytes; a larger body is not an answer and is not buffered.
const RESPONSE_BYTES_MAX = 16_384;
// Longer than any real holder name (Korean names and company names fit easily).
const HOLDER_NAME_LENGTH_MAX = 200;

const PLAIN_RESULTS: Readonly<Record<string, HolderLookupResult>> = Object.freeze({
  NOT_FOUND: { kind: 'notFound' },
  CLOSED: { kind: 'closed' },
  AMOUNT_REQUIRED: { kind: 'amountRequired' },
});

type LiveOptions = {
  // Unset: no gateway, every lookup is unavailable.
  gatewayUrl: string | undefined;
  // Bounds the wait for the response headers and between body chunks; the caller's signal
  // bounds the whole call.
  timeoutMs: number;
};

// Parses a gateway answer; null for anything outside the contract.
export function parseGatewayAnswer(text: string): HolderLookupResult | null {
  const parsed = parseJsonObject(text);
  if (parsed === null) return null;
  const { result, holderName } = parsed;
  if (typeof result !== 'string') return null;
  if (Object.hasOwn(PLAIN_RESULTS, result)) return PLAIN_RESULTS[result]!;
  if (result !== 'FOUND' || typeof holderName !== 'string') return null;
  const name = holderName.trim();
  if (name.length === 0 || name.length > HOLDER_NAME_LENGTH_MAX) return null;
  return { kind: 'found', holderName: name };
}

async function callGateway(url: string, timeoutMs: number, lookup: HolderLookup) {
  const text = await postJson({
    url,
    body: { bankCode: lookup.bankCode, accountNumber: lookup.accountNumber },
    signal: lookup.signal,
    timeoutMs,
    responseBytesMax: RESPONSE_BYTES_MAX,
  });
  return text === null ? UNAVAILABLE : (parseGatewayAnswer(text) ?? UNAVAILABLE);
}

export function createLiveBanks({ gatewayUrl, timeoutMs }: LiveOptions): BankAdapter {
  if (!gatewayUrl) return { lookupHolder: async () => UNAVAILABLE };
  const url = `${gatewayUrl.replace(/\/+$/, '')}/holders:inquire`;
  return {
    async lookupHolder(lookup) {
      if (lookup.signal.aborted) return UNAVAILABLE;
      try {
        return await callGateway(url, timeoutMs, lookup);
      } catch {
        // Refused connections, resets, timeouts and aborts all mean the bank did not answer.
        return UNAVAILABLE;
      }
    },
  };
}
