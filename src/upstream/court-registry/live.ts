import { callDocumentGateway } from '../document-gateway.ts';
import type { CourtRegistry } from './index.ts';

// The court registry of live keys: an operator-run gateway (DOCUMENTS_REGISTRY_GATEWAY_URL) over
// the JSON contract of document-gateway.ts: POST {gateway}/registryCopies:issue.
export function createCourtRegistryGateway(options: {
  gatewayUrl: string;
  timeoutMs: number;
  now: () => Date;
}): CourtRegistry {
  const url = `${options.gatewayUrl.replace(/\/+$/, '')}/registryCopies:issue`;
  return {
    issue: (request, signal) => callDocumentGateway({ url, signal, timeoutMs: options.timeoutMs,
      now: options.now, body: { ...request, acceptedAt: request.acceptedAt.toISOString() } }),
  };
}
