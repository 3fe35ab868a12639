// The authenticity check (/validate) of the tax-authority adapters: the live request body and
// answer parsing, and the sandbox certificates (docs/sandbox.md § Business registration
// certificates).
import { describe, expect, it } from 'vitest';
import {
  parseValidateAnswer,
  validateRequestEntry,
} from '../../../src/upstream/tax-authority/live.ts';
import {
  createSandboxTaxAuthority,
  SANDBOX_CERTIFICATE_TIMEOUT_NUMBER,
  SANDBOX_CERTIFICATES,
} from '../../../src/upstream/tax-authority/sandbox.ts';

const NUMBER = '1248100998';

describe('live /validate', () => {
  it('sends the required fields and only the optional ones given', () => {
    expect(validateRequestEntry({ businessRegistrationNumber: NUMBER, openedOn: '2015-04-01',
      representativeName: '홍길동', organizationName: '(주)이택스' })).toEqual({
      b_no: NUMBER, start_dt: '20150401', p_nm: '홍길동', b_nm: '(주)이택스' });
  });

  it('reads 01 as a match with the status, 02 as no match, anything else as no answer', () => {
    const status = { b_no: NUMBER, b_stt_cd: '02', tax_type_cd: '01', tax_type: '일반과세자' };
    expect(parseValidateAnswer(JSON.stringify({ status_code: 'OK',
      data: [{ b_no: NUMBER, valid: '01', status }] }), NUMBER)).toEqual({ kind: 'answered',
      matches: true, status: { status: 'SUSPENDED', closedOn: null, taxType: 'GENERAL' } });
    expect(parseValidateAnswer(JSON.stringify({ status_code: 'OK',
      data: [{ b_no: NUMBER, valid: '02', valid_msg: '확인할 수 없습니다' }] }), NUMBER))
      .toEqual({ kind: 'answered', matches: false, status: null });
    for (const body of ['{', '[]', JSON.stringify({ status_code: 'REQUEST_DATA_MALFORMED' }),
      JSON.stringify({ status_code: 'OK', data: [{ b_no: '2208162517', valid: '01' }] }),
      JSON.stringify({ status_code: 'OK', data: [{ b_no: NUMBER, valid: '03' }] })]) {
      expect(parseValidateAnswer(body, NUMBER), body).toBeNull();
    }
  });
});

describe('sandbox /validate', () => {
  const sandbox = createSandboxTaxAuthority({ latencyMs: 0 });
  const corporation = SANDBOX_CERTIFICATES['9999900005']!;
  const required = { businessRegistrationNumber: corporation.businessRegistrationNumber,
    openedOn: corporation.openedOn, representativeName: corporation.representativeName };

  it('matches the sandbox corporation, ignoring whitespace and the (주) form', async () => {
    const result = await sandbox.validateCertificate({ ...required,
      organizationName: '(주) 이택스샌드박스', address: corporation.address.replaceAll(' ', '') },
    AbortSignal.timeout(1_000));
    expect(result).toEqual({ kind: 'answered', matches: true,
      status: { status: 'ACTIVE', closedOn: null, taxType: 'GENERAL' } });
  });

  it('does not match a changed field or another number', async () => {
    const signal = AbortSignal.timeout(1_000);
    const noMatch = { kind: 'answered', matches: false, status: null };
    expect(await sandbox.validateCertificate({ ...required, openedOn: '2015-04-02' }, signal))
      .toEqual(noMatch);
    expect(await sandbox.validateCertificate({ ...required, businessType: '제조업' }, signal))
      .toEqual(noMatch);
    expect(await sandbox.validateCertificate({ ...required,
      businessRegistrationNumber: NUMBER }, signal)).toEqual(noMatch);
  });

  it('never answers for the timeout number: the caller\'s signal ends it', async () => {
    const result = await sandbox.validateCertificate({ ...required,
      businessRegistrationNumber: SANDBOX_CERTIFICATE_TIMEOUT_NUMBER }, AbortSignal.timeout(50));
    expect(result).toEqual({ kind: 'unavailable' });
  });
});
