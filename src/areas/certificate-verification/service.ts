import assert from 'node:assert/strict';
import type { Environment } from '../../platform/accounts/keys.ts';
import { ApiError } from '../../platform/errors.ts';
import type { Charger } from '../../platform/points/charge.ts';
import type { Scope } from '../../platform/scope.ts';
import {
  certificateCheckUnavailableOnAbort,
  type CertificateFacts,
  type CertificateValidator,
  type StatusOfNumber,
} from '../../upstream/tax-authority/index.ts';
import { FIELD_NAMES, hasRequiredFields, type FieldName, type FieldReading } from './fields.ts';
import { fileKindOf } from './file-type.ts';
import type { CertificateReader, FileReading } from './reader.ts';

// Certificate verification (docs/certificate-verification.md). The phases of one request:
//   1. the file's kind from its first bytes: PDF, PNG or JPEG, else 415 UNSUPPORTED_FILE_TYPE;
//   2. reserve 100 points (402/409 from the ledger) before any reading;
//   3. read the fields (PDF text layer, or OCR in the bounded pool: 503 when it is full; 400
//      INVALID_FILE for a file that cannot be decoded);
//   4. without a valid number, an opening date and a representative: UNREADABLE, nothing is
//      sent to the tax authority and nothing is charged;
//   5. otherwise ask the tax authority (/validate) with every field read, bounded by
//      `timeoutMs`: MATCHED (with the current status) or NOT_MATCHED capture 100 points; no
//      answer is UNAVAILABLE and charges nothing.

const PRICE_ROW = 'businesses.certificates.verify';

export type VerificationResult = 'MATCHED' | 'NOT_MATCHED' | 'UNREADABLE' | 'UNAVAILABLE';

export type CertificateVerification = {
  extracted: Record<FieldName, string | null>;
  fields: Partial<Record<FieldName, FieldReading>>;
  source: FileReading['source'];
  verification: {
    result: VerificationResult;
    checkedAt: string | null;
    status: StatusOfNumber | null;
  };
};

type Deps = {
  charge: Charger;
  reader: CertificateReader;
  // The tax authority of an environment: test keys get the sandbox, live keys the public API.
  validatorFor: (environment: Environment) => CertificateValidator;
  timeoutMs: number;
  now: () => Date;
};

// What is sent to the tax authority: the three required fields and whatever else was read.
function factsOf(reading: FileReading): CertificateFacts {
  const value = (name: FieldName) => reading.fields[name]?.value;
  const facts: CertificateFacts = {
    businessRegistrationNumber: value('businessRegistrationNumber')!,
    openedOn: value('openedOn')!,
    representativeName: value('representativeName')!,
  };
  const optional = ['organizationName', 'corporateRegistrationNumber', 'businessType',
    'businessItem', 'address'] as const;
  for (const name of optional) {
    const read = value(name);
    if (read !== undefined) facts[name] = read;
  }
  return facts;
}

function extractedOf(reading: FileReading): Record<FieldName, string | null> {
  return Object.fromEntries(FIELD_NAMES.map((name) =>
    [name, reading.fields[name]?.value ?? null])) as Record<FieldName, string | null>;
}

export function createCertificateVerificationService(deps: Deps) {
  assert(Number.isSafeInteger(deps.timeoutMs) && deps.timeoutMs >= 1);

  async function ask(validator: CertificateValidator, facts: CertificateFacts) {
    const signal = AbortSignal.timeout(deps.timeoutMs);
    return Promise.race([
      validator.validateCertificate(facts, signal),
      certificateCheckUnavailableOnAbort(signal),
    ]);
  }

  async function verify(input: { caller: Scope; file: Buffer }): Promise<CertificateVerification> {
    const kind = fileKindOf(input.file);
    if (kind === null) {
      throw new ApiError('UNSUPPORTED_FILE_TYPE',
        'The file is not a PDF, PNG or JPEG (judged by its content, not its name or type).');
    }
    const validator = deps.validatorFor(input.caller.environment);
    const { value } = await deps.charge(
      { scope: input.caller, operation: PRICE_ROW, unitsMax: 1 },
      async () => {
        const reading = await deps.reader.read(kind, input.file);
        const answer = (result: VerificationResult, checkedAt: Date | null,
          status: StatusOfNumber | null): CertificateVerification => ({
          extracted: extractedOf(reading),
          fields: reading.fields,
          source: reading.source,
          verification: { result, checkedAt: checkedAt?.toISOString() ?? null, status },
        });
        if (!hasRequiredFields(reading)) {
          return { value: answer('UNREADABLE', null, null), chargedUnits: 0 };
        }
        const check = await ask(validator, factsOf(reading));
        const checkedAt = deps.now();
        if (check.kind === 'unavailable') {
          return { value: answer('UNAVAILABLE', checkedAt, null), chargedUnits: 0 };
        }
        return check.matches
          ? { value: answer('MATCHED', checkedAt, check.status), chargedUnits: 1 }
          : { value: answer('NOT_MATCHED', checkedAt, null), chargedUnits: 1 };
      },
    );
    return value;
  }

  return { verify };
}

export type CertificateVerificationService =
  ReturnType<typeof createCertificateVerificationService>;
