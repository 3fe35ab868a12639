import { LRUCache } from 'lru-cache';
import type { Logger } from 'pino';
import type { Environment } from '../../../platform/accounts/keys.ts';
import { ApiError } from '../../../platform/errors.ts';
import {
  unavailableOnAbort,
  type StatusOfNumber,
  type TaxAuthority,
} from '../../../upstream/tax-authority/index.ts';
import type { TaxType } from '../schemas.ts';

// Whether the supplier may issue the documents of a request (docs/tax-invoices.md § Supplier
// eligibility), from its registration status at the tax authority: the same public status
// service the registration status operations ask (sandbox for test keys, so the sandbox behaves
// like production), but free and cached, since it is asked on every accepted request.
//
//   closed (폐업)                                → 409 SUPPLIER_CLOSED
//   tax-exempt business (면세사업자)              → 409 SUPPLIER_TAX_EXEMPT unless every
//                                                  document is TAX_FREE (계산서)
//   simplified taxpayer not a tax-invoice issuer → 409 SUPPLIER_NOT_TAX_INVOICE_ISSUER for a
//   (간이과세자, 영수증 발급 대상)                      TAXABLE or ZERO_RATED document
//
// Anything else passes: a suspended business (휴업) may still invoice supplies made before its
// suspension, and the authority's other answers say nothing the law makes a bar. When the
// authority cannot answer, `unavailable` decides: allow (and log a warning) or refuse with 503.

export type UnavailablePolicy = 'allow' | 'refuse';

type EligibilityDeps = {
  authorityFor: (environment: Environment) => TaxAuthority;
  timeoutMs: number;
  cacheMs: number;
  unavailable: UnavailablePolicy;
  now: () => Date;
  log: Pick<Logger, 'warn'>;
};

export type SupplierEligibility = {
  // The supplier's registration status, or null when the authority did not answer.
  statusOf(environment: Environment, identificationNumber: string):
    Promise<StatusOfNumber | null>;
  // Throws the ApiError that refuses the supplier for a status learned by statusOf (503 when
  // it is null and the policy refuses); returns when it may issue.
  judge(environment: Environment, identificationNumber: string, status: StatusOfNumber | null,
    taxTypes: readonly TaxType[]): void;
  // The trustee of a trustee document (위수탁): only a closed business is refused, since what
  // is supplied, and so taxed, is the consignor's (judged by judge).
  judgeTrustee(environment: Environment, identificationNumber: string,
    status: StatusOfNumber | null): void;
  // Both at once.
  check(environment: Environment, identificationNumber: string,
    taxTypes: readonly TaxType[]): Promise<void>;
};

// Each rule by name: the status it refuses and why.
export function closedBusinessRule(status: StatusOfNumber, number: string,
  role: 'supplier' | 'trustee' = 'supplier'): ApiError | null {
  if (status.status !== 'CLOSED') return null;
  const since = status.closedOn === null ? '' : ` on ${status.closedOn}`;
  return new ApiError('SUPPLIER_CLOSED', `The ${role} ${number} was closed (폐업)${since} ` +
    'according to the tax authority; a closed business cannot issue tax invoices.');
}

export function taxExemptBusinessRule(status: StatusOfNumber, number: string,
  taxTypes: readonly TaxType[]): ApiError | null {
  if (status.taxType !== 'TAX_FREE' || taxTypes.every((type) => type === 'TAX_FREE')) return null;
  return new ApiError('SUPPLIER_TAX_EXEMPT', `The supplier ${number} is a tax-exempt business ` +
    '(면세사업자) according to the tax authority: it issues only tax-exempt invoices (계산서), ' +
    'whose items all have a tax of null.');
}

export function simplifiedReceiptIssuerRule(status: StatusOfNumber, number: string,
  taxTypes: readonly TaxType[]): ApiError | null {
  if (status.taxType !== 'SIMPLIFIED_RECEIPT_ISSUER') return null;
  if (taxTypes.every((type) => type === 'TAX_FREE')) return null;
  return new ApiError('SUPPLIER_NOT_TAX_INVOICE_ISSUER', `The supplier ${number} is a ` +
    'simplified taxpayer that issues receipts, not tax invoices (간이과세자, 영수증 발급 대상), ' +
    'according to the tax authority; it cannot issue a tax invoice.');
}

function supplierRefusal(status: StatusOfNumber, number: string,
  taxTypes: readonly TaxType[]): ApiError | null {
  return closedBusinessRule(status, number) ??
    taxExemptBusinessRule(status, number, taxTypes) ??
    simplifiedReceiptIssuerRule(status, number, taxTypes);
}

// A bound on the copy's size: beyond it the least recently used answers go first.
const CACHE_ENTRIES_MAX = 10_000;

type Asked = { environment: Environment; number: string };

export function createSupplierEligibility(deps: EligibilityDeps): SupplierEligibility {
  async function ask(_key: string, _stale: unknown, { context }: { context: Asked }) {
    const signal = AbortSignal.timeout(deps.timeoutMs);
    const result = await Promise.race([
      deps.authorityFor(context.environment).checkStatuses([context.number], signal),
      unavailableOnAbort(signal),
    ]);
    // An unavailable answer is not kept: the next request asks again.
    return result.kind === 'unavailable' ? undefined : result.results.get(context.number);
  }

  // Answers by environment and number. Test and live answers never mix: the sandbox's numbers
  // are not facts about real businesses. Requests for a number not yet known share one call, so
  // a burst of issuance asks once. An answer is used while it is younger than `cacheMs` by the
  // platform's clock (lru-cache keeps an entry up to its ttl included, hence the millisecond
  // less; a cache time of 0 keeps answers a millisecond).
  const cache = new LRUCache<string, StatusOfNumber, Asked>({
    max: CACHE_ENTRIES_MAX,
    ttl: Math.max(deps.cacheMs - 1, 1),
    perf: { now: () => deps.now().getTime() },
    // Every read asks the clock: a test's clock moves between two reads of one tick.
    ttlResolution: 0,
    fetchMethod: ask,
  });

  async function statusOf(environment: Environment, number: string) {
    return (await cache.fetch(`${environment}:${number}`, { context: { environment, number } }))
      ?? null;
  }

  function judge(environment: Environment, number: string, status: StatusOfNumber | null,
    taxTypes: readonly TaxType[]) {
    if (status === null) {
      if (deps.unavailable === 'refuse') {
        throw new ApiError('LOOKUP_UNAVAILABLE', 'The tax authority did not answer whether ' +
          'the supplier may issue tax invoices. Retry later.');
      }
      deps.log.warn({ environment, supplier: number }, 'supplier registration status ' +
        'unavailable; the document is accepted unchecked (TAX_INVOICE_SUPPLIER_STATUS_UNAVAILABLE' +
        '=allow)');
      return;
    }
    const refusal = supplierRefusal(status, number, taxTypes);
    if (refusal !== null) throw refusal;
  }

  function judgeTrustee(environment: Environment, number: string,
    status: StatusOfNumber | null) {
    if (status === null) {
      judge(environment, number, status, []);
      return;
    }
    const refusal = closedBusinessRule(status, number, 'trustee');
    if (refusal !== null) throw refusal;
  }

  async function check(environment: Environment, number: string, taxTypes: readonly TaxType[]) {
    judge(environment, number, await statusOf(environment, number), taxTypes);
  }

  return { statusOf, judge, judgeTrustee, check };
}
