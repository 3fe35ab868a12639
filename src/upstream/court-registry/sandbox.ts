import { setTimeout as sleep } from 'node:timers/promises';
import { CORPORATION_KIND_LABELS } from '../../domain/corporation-kinds.ts';
import type { DocumentIssueResult } from '../civil-documents/index.ts';
import { renderSandboxCertificate } from '../sandbox-pdf.ts';
import { digitsFrom, groupedNumber, koreanDate, sandboxAmount } from '../sandbox-numbers.ts';
import type { CourtRegistry, RegistryCopyRequest } from './index.ts';

// The court registry of test keys (docs/sandbox.md § Documents): a register made up from the
// corporation number (its name, head office, capital and officers derived from the number, so
// the same corporation always has the same entries), printed as a one-page PDF marked SANDBOX.
// A submission copy carries an issuance confirmation number. A corporation number whose serial
// (digits 7 to 12) is 000000 names no corporation: CORPORATION_NOT_FOUND.

const SANDBOX_MISSING_SERIAL = '000000';

const SURNAMES = ['김', '이', '박', '최', '정', '강', '조', '윤', '장', '임'];
const GIVEN = ['민준', '서연', '도윤', '하은', '지호', '수아', '예준', '지민', '시우', '유진'];

function personName(seed: string): string {
  const digits = digitsFrom(seed, 2);
  return `${SURNAMES[Number(digits[0])]}${GIVEN[Number(digits[1])]}`;
}

function formatCorporationNumber(digits: string): string {
  return `${digits.slice(0, 6)}-${digits.slice(6)}`;
}

async function renderRegistryCopy(request: RegistryCopyRequest, issuedAt: Date) {
  const number = request.corporationNumber;
  const kind = CORPORATION_KIND_LABELS[request.corporationKind];
  const name = `${kind} 샌드박스${number.slice(6, 12)}`;
  const rows: Array<[string, string]> = [
    ['등기번호', digitsFrom(`registry:${number}`, 6)],
    ['등록번호', formatCorporationNumber(number)],
    ['상호', name],
    ['본점', `서울특별시 종로구 사직로 ${Number(digitsFrom(`hq:${number}`, 2)) + 1}`],
    ['법인 종류', kind],
    ['자본금의 액', `금 ${sandboxAmount(`capital:${number}`).toLocaleString('en')}원`],
    ['대표이사', personName(`ceo:${number}`)],
    ['사내이사', personName(`director:${number}`)],
    ['회사성립연월일', '2015. 03. 02.'],
  ];
  if (request.entries === 'INCLUDING_STRUCK_OUT') {
    rows.push(['말소사항', `사내이사 ${personName(`former:${number}`)} 2020. 03. 31. 퇴임`]);
  }
  rows.push(['발급 범위', `${request.scope === 'ALL' ? '전부' : '일부'} · ` +
    `${request.entries === 'CURRENT' ? '현재유효사항' : '말소사항포함'}`]);
  const footer = request.copy === 'SUBMISSION'
    ? ['이 증명서는 등기기록의 내용과 틀림없음을 증명합니다.',
      `발급확인번호 ${groupedNumber(`confirmation:${request.issuanceKey}`)}`,
      koreanDate(issuedAt), '서울중앙지방법원 등기국 등기관 (SANDBOX)']
    : ['열람용: 제출용으로 사용할 수 없습니다.', koreanDate(issuedAt)];
  return renderSandboxCertificate({
    title: `등기사항${request.scope === 'ALL' ? '전부' : '일부'}증명서(` +
      `${request.entries === 'CURRENT' ? '현재 유효사항' : '말소사항 포함'}) - ` +
      `${request.copy === 'VIEW' ? '열람용' : '제출용'}`,
    subtitle: `${name} · SANDBOX: 대법원 인터넷등기소에서 발급되지 않은 문서입니다`,
    rows,
    footer,
    issuedAt,
  });
}

export function createSandboxCourtRegistry(options: { latencyMs?: number } = {}): CourtRegistry {
  return {
    async issue(request, signal): Promise<DocumentIssueResult> {
      if (options.latencyMs) await sleep(options.latencyMs, undefined, { signal });
      if (request.corporationNumber.slice(6, 12) === SANDBOX_MISSING_SERIAL) {
        return { kind: 'rejected', code: 'CORPORATION_NOT_FOUND',
          message: 'The court registry has no corporation with this number.' };
      }
      const issuedAt = request.acceptedAt;
      return { kind: 'issued', issuedAt,
        issueNumber: groupedNumber(`registry:${request.issuanceKey}`),
        pdf: await renderRegistryCopy(request, issuedAt) };
    },
  };
}
