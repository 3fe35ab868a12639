import { callDocumentGateway } from '../document-gateway.ts';
import type { CivilDocumentService } from './index.ts';

// The civil-document service of live keys. Hometax has no public API for civil documents, so
// etax talks to an operator-run gateway (DOCUMENTS_CIVIL_GATEWAY_URL) over the JSON contract of
// document-gateway.ts: POST {gateway}/civilDocuments:issue with the request, the PDF as base64.
export function createCivilDocumentsGateway(options: {
  gatewayUrl: string;
  timeoutMs: number;
  now: () => Date;
}): CivilDocumentService {
  const url = `${options.gatewayUrl.replace(/\/+$/, '')}/civilDocuments:issue`;
  return {
    issue: (request, signal) => callDocumentGateway({ url, signal, timeoutMs: options.timeoutMs,
      now: options.now, body: { ...request, acceptedAt: request.acceptedAt.toISOString() } }),
  };
}
