import type { CorporationKind } from '../../domain/corporation-kinds.ts';
import type { DocumentIssueResult } from '../civil-documents/index.ts';

// The court registry (대법원 인터넷등기소): certified copies of a corporation's register
// (법인 등기사항증명서) for any corporation of a supported kind, no joint certificate needed
// (docs/documents.md § Live gateways). A view copy (열람용) is for reference; a submission
// copy (제출용) carries an issuance confirmation number and is valid for submission. Two
// implementations: sandbox.ts for test keys and live.ts, an operator-run gateway, for live keys.
// An issuance is idempotent by issuance key, as the civil-document service's.

export type RegistryCopyRequest = {
  issuanceKey: string;
  copy: 'VIEW' | 'SUBMISSION';
  corporationNumber: string;
  corporationKind: CorporationKind;
  // ALL (전부) or PART (일부) of the register; CURRENT entries only (현재유효사항) or
  // INCLUDING_STRUCK_OUT ones (말소사항포함).
  scope: 'ALL' | 'PART';
  entries: 'CURRENT' | 'INCLUDING_STRUCK_OUT';
  acceptedAt: Date;
};

export type CourtRegistry = {
  issue(request: RegistryCopyRequest, signal: AbortSignal): Promise<DocumentIssueResult>;
};
