import {
  businessRegistrationNumberDefect,
  normalizeBusinessRegistrationNumber,
} from '../../domain/business-registration-number.ts';
import type { Db } from '../../platform/db/connect.ts';
import { ApiError, isApiError } from '../../platform/errors.ts';
import type { Scope } from '../../platform/scope.ts';
import type { IssuersService } from '../issuers/index.ts';
import type { OwnerBusinessBody, OwnerBusinessView } from './schemas.ts';
import * as store from './store.ts';

// The owner business (docs/documents.md § The owner business): the business that owns an
// account's API keys in one environment, the only business tax-authority documents are issued
// for. It is an issuer of the issuers area, so its joint certificate is registered (by API or on
// the hosted page), checked and sealed by the one certificate flow every issuer has; this file
// only remembers which issuer it is.

type Issuer = Awaited<ReturnType<IssuersService['getIssuer']>>;

// The ten digits of the body's business number, checked as the issuers area checks its own, but
// naming this body's field.
function checkBusinessNumber(input: string): string {
  const digits = normalizeBusinessRegistrationNumber(input);
  if (digits === null) {
    throw new ApiError('INVALID_REQUEST',
      'body.businessNumber must have ten digits once hyphens are removed.');
  }
  const defect = businessRegistrationNumberDefect(digits);
  if (defect !== null) {
    throw new ApiError('INVALID_BUSINESS_REGISTRATION_NUMBER', `body.businessNumber ${defect}.`);
  }
  return digits;
}

function toView(issuer: Issuer, row: store.OwnerBusinessRow): OwnerBusinessView {
  return {
    businessNumber: issuer.identificationNumber,
    name: issuer.organizationName,
    representativeName: issuer.representativeName,
    issuerId: issuer.issuerId,
    certificate: issuer.certificate,
    createdAt: row.createdAt.toISOString(),
    updatedAt: (issuer.updatedAt > row.updatedAt.toISOString() ? issuer.updatedAt
      : row.updatedAt.toISOString()),
  };
}

export function createOwnerBusinesses(deps: { db: Db; issuers: IssuersService }) {
  const { db, issuers } = deps;

  async function createOrAdopt(scope: Scope, body: OwnerBusinessBody): Promise<Issuer> {
    try {
      return await issuers.createIssuer({ scope, issuer: { identificationNumber:
        body.businessNumber, organizationName: body.name,
      representativeName: body.representativeName } });
    } catch (error) {
      if (!isApiError(error) || error.code !== 'ISSUER_ALREADY_REGISTERED') throw error;
      // The active issuer of the business without a sub-place, which the account registered
      // already: it becomes the owner business, with its certificate.
      const existing = await issuers.findActiveIssuer({ scope,
        identificationNumber: checkBusinessNumber(body.businessNumber), taxRegistrationId: null });
      if (existing === null) throw error;
      return issuers.updateIssuer({ scope, issuerId: existing.issuerId,
        changes: { organizationName: body.name, representativeName: body.representativeName } });
    }
  }

  // The owner business and its issuer, as it stands; null when none was set, or when its issuer
  // is no longer there.
  async function find(scope: Scope) {
    const row = await store.findOwnerBusiness(db, scope);
    if (row === null) return null;
    const issuer = await issuers.getIssuer({ scope, issuerId: row.issuerId });
    return { row, issuer };
  }

  return {
    async get({ scope }: { scope: Scope }): Promise<OwnerBusinessView> {
      const found = await find(scope);
      if (found === null) throw new ApiError('OWNER_BUSINESS_NOT_REGISTERED');
      return toView(found.issuer, found.row);
    },

    // Sets the owner business. The same business number changes the name and representative;
    // another number (or a deactivated issuer) makes or adopts another issuer, whose
    // certificate then serves, and leaves the old issuer as it is.
    async save({ scope, business: body }: { scope: Scope; business: OwnerBusinessBody }):
    Promise<OwnerBusinessView> {
      const digits = checkBusinessNumber(body.businessNumber);
      const current = await find(scope);
      const keep = current !== null && current.issuer.active &&
        current.issuer.identificationNumber === digits;
      const issuer = keep
        ? await issuers.updateIssuer({ scope, issuerId: current.issuer.issuerId,
          changes: { organizationName: body.name, representativeName: body.representativeName } })
        : await createOrAdopt(scope, body);
      const row = await store.saveOwnerBusiness(db, scope, issuer.issuerId);
      return toView(issuer, row);
    },

    // The owner business's issuer, for a tax-authority document: 409
    // OWNER_BUSINESS_NOT_REGISTERED without one.
    async requireIssuerId({ scope }: { scope: Scope }): Promise<string> {
      const row = await store.findOwnerBusiness(db, scope);
      if (row === null) throw new ApiError('OWNER_BUSINESS_NOT_REGISTERED');
      return row.issuerId;
    },
  };
}

export type OwnerBusinesses = ReturnType<typeof createOwnerBusinesses>;
