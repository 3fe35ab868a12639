import assert from 'node:assert/strict';
import { businessRegistrationNumberDefect } from '../../../domain/business-registration-number.ts';
import {
  isCalendarDate,
  issueDeadline,
  type AddedHolidays,
} from '../../../domain/business-days.ts';
import {
  firstNonBmpCharacter,
  firstXmlNoncharacter,
  formatCodePoint,
  isBlank,
} from '../../../domain/text.ts';
import { ApiError } from '../../../platform/errors.ts';
import type {
  Broker,
  Invoice,
  Item,
  Manager,
  Payment,
  Supplied,
  Supplier,
  TaxType,
} from '../schemas.ts';
import {
  expectedTax,
  formatProduct,
  isItemTaxAtRate,
  isSupplyCostOfQuantity,
  isTaxTotalAtRate,
  sumAmounts,
  taxTotalToleranceWon,
} from '../../../domain/tax-amounts.ts';
import {
  issueTiming,
  tooLateReason,
  type SupplierPeriods,
  type TimingBasis,
} from './late-issuance.ts';

// The rules between the fields of a tax invoice document that its schema (../schemas.ts)
// cannot express. Every failure is a 400 whose message names the field, as the schema's own
// messages do. Pure: the caller supplies today's date and the issuer named by Supplier-Key.
//
// Checks run in this order and the first failure wins: text (every string), the write date
// and its deadline, item dates, the supplier, the recipient and its managers, the tax type, the
// item amounts and their arithmetic (10% VAT, quantity × unit price:
// src/domain/tax-amounts.ts), then the totals.

export type AmountRule = 'forward' | 'amendment';

export type ValidationContext = {
  today: string; // YYYY-MM-DD in Asia/Seoul
  // The issuer the Supplier-Key header names; the invoice's supplier must be this business.
  supplier: { identificationNumber: string; taxRegistrationId: string | null };
  amounts: AmountRule;
  // 'ignored' only for amendment documents, whose write-date rules differ.
  deadline: 'enforced' | 'ignored';
  // The operator's holidays (holidays/calendar.ts), which move deadlines like the table's.
  holidays: AddedHolidays;
  // What of the supplier decides the late-issuance limit (./late-issuance.ts): whether its VAT
  // period is the calendar year, and its business year for a tax-exempt invoice.
  supplierPeriods: SupplierPeriods;
  // 'original' for an amendment document whose items are those of the document it amends
  // (negated or copied): their amounts were accepted when that document was issued, perhaps
  // before the VAT rate and quantity × unit price were checked, and a reversal must never be
  // refused for them. Everything else is 'request', the default.
  amountsFrom?: 'request' | 'original';
  // 'refused' where a trustee (broker) cannot issue: a reverse issuance request, which the
  // buyer sends to the supplier itself. Default 'allowed'.
  broker?: 'allowed' | 'refused';
};

export type ValidatedInvoice = {
  invoice: Invoice; // Normalised: absent optional fields are null, strings as sent.
  taxType: TaxType;
  totals: { supplyCost: number; tax: number; total: number }; // tax is 0 unless TAXABLE
  issueDeadline: string;
  // Issued after its issue deadline but by its late-issuance limit (./late-issuance.ts).
  lateIssuance: boolean;
  counterpartNumber: string; // invoice.supplied.identificationNumber
};

const ROOT = 'body';

function invalid(message: string): ApiError {
  return new ApiError('INVALID_REQUEST', message);
}

export function validateInvoice(invoice: Invoice, context: ValidationContext): ValidatedInvoice {
  assert(isCalendarDate(context.today), 'context.today must be a YYYY-MM-DD date');
  const normalised = normaliseInvoice(invoice);
  checkText(normalised, ROOT);
  const lateIssuance = checkWriteDate(normalised, context);
  checkItemDates(normalised);
  if (normalised.broker == null) {
    checkSupplier(normalised.supplier, context.supplier);
  } else {
    checkTrustee(normalised, normalised.broker, context);
  }
  checkSupplied(normalised.supplied, normalised.supplier);
  if (normalised.broker != null) checkNotBroker(normalised.supplied, normalised.broker);
  const taxType = checkTaxType(normalised.items);
  normalised.items.forEach((item, index) => checkItemAmounts(item, index, context.amounts));
  const checkArithmetic = (context.amountsFrom ?? 'request') === 'request';
  if (checkArithmetic) {
    normalised.items.forEach((item, index) => checkItemArithmetic(item, index, taxType));
  }
  const totals = computeTotals(normalised.items);
  checkTotals(totals, context.amounts);
  if (checkArithmetic && taxType === 'TAXABLE') {
    checkTaxTotal(totals, normalised.items.length);
  }
  if (checkArithmetic) checkPayment(normalised.payment, totals);
  return {
    invoice: normalised,
    taxType,
    totals,
    issueDeadline: issueDeadline(normalised.date, context.holidays),
    lateIssuance,
    counterpartNumber: normalised.supplied.identificationNumber,
  };
}

// Sums of the items (src/domain/tax-amounts.ts). A tax-exempt item's null tax counts as 0.
export function computeTotals(items: Invoice['items']): ValidatedInvoice['totals'] {
  for (const item of items) {
    assert(Number.isSafeInteger(item.supplyCost));
    assert(item.tax === null || Number.isSafeInteger(item.tax));
  }
  const totals = sumAmounts(items);
  // The schema bounds each amount and the item count so that these sums stay exact.
  assert(Number.isSafeInteger(totals.supplyCost));
  assert(Number.isSafeInteger(totals.tax));
  assert(Number.isSafeInteger(totals.total));
  return totals;
}

// ---- Normalisation ------------------------------------------------------------------------

function normaliseManager(manager: Manager): Manager {
  return { email: manager.email, name: manager.name ?? null, telephone: manager.telephone ?? null };
}

function normaliseParty(party: Supplier | Supplied | Broker) {
  return {
    identificationNumber: party.identificationNumber,
    taxRegistrationId: party.taxRegistrationId ?? null,
    organizationName: party.organizationName,
    representativeName: party.representativeName,
    address: party.address ?? null,
    businessType: party.businessType ?? null,
    businessItem: party.businessItem ?? null,
  };
}

function normaliseItem(item: Item): Item {
  return {
    date: item.date,
    name: item.name,
    specification: item.specification ?? null,
    quantity: item.quantity ?? null,
    unitPrice: item.unitPrice ?? null,
    supplyCost: item.supplyCost,
    tax: item.tax,
    description: item.description ?? null,
  };
}

function normaliseInvoice(invoice: Invoice): Invoice {
  return {
    date: invoice.date,
    purpose: invoice.purpose,
    supplier: {
      ...normaliseParty(invoice.supplier),
      manager: normaliseManager(invoice.supplier.manager),
    },
    supplied: {
      ...normaliseParty(invoice.supplied),
      managers: invoice.supplied.managers.map(normaliseManager),
    },
    items: invoice.items.map(normaliseItem),
    description: invoice.description ?? null,
    // Kept only when asked, so documents that never asked read as they always did.
    ...(invoice.emailSupplierCopy === true ? { emailSupplierCopy: true } : {}),
    // Only when given, so documents without one read back as they always did.
    ...(invoice.payment == null ? {} : { payment: normalisePayment(invoice.payment) }),
    // Only on a trustee document, so every other document reads as it always did.
    ...(invoice.broker == null ? {} : { broker: {
      ...normaliseParty(invoice.broker),
      manager: invoice.broker.manager == null ? null : normaliseManager(invoice.broker.manager),
    } }),
  };
}

function normalisePayment(payment: Payment): Payment {
  return { cash: payment.cash ?? null, check: payment.check ?? null,
    note: payment.note ?? null, credit: payment.credit ?? null };
}

// ---- Text ---------------------------------------------------------------------------------

// Every string of the document, wherever it is: names, addresses, remarks, emails, phones.
function checkText(value: unknown, path: string): void {
  if (typeof value === 'string') {
    checkString(value, path);
  } else if (Array.isArray(value)) {
    value.forEach((element, index) => checkText(element, `${path}[${index}]`));
  } else if (typeof value === 'object' && value !== null) {
    for (const [key, element] of Object.entries(value)) checkText(element, `${path}.${key}`);
  }
}

function checkString(text: string, path: string): void {
  const found = firstNonBmpCharacter(text);
  if (found) {
    throw invalid(`${path} contains ${formatCodePoint(found.codePoint)} at position ` +
      `${found.index}, a character outside the Basic Multilingual Plane (such as an emoji); ` +
      'such characters cannot be put on a tax invoice.');
  }
  const noncharacter = firstXmlNoncharacter(text);
  if (noncharacter >= 0) {
    throw invalid(`${path} contains ${formatCodePoint(text.charCodeAt(noncharacter))} at ` +
      `position ${noncharacter}, a noncharacter that the tax invoice's XML cannot carry.`);
  }
  if (isBlank(text)) throw invalid(`${path} must not be blank.`);
}

// ---- Dates --------------------------------------------------------------------------------

// The tax type that decides the late window, before the items' taxes are checked: the first
// item's null tax makes a tax-exempt invoice (checkTaxType), and a taxable and a zero-rated tax
// invoice have the same window.
function windowTaxType(invoice: Invoice): TaxType {
  return invoice.items[0]!.tax === null ? 'TAX_FREE' : 'TAXABLE';
}

// True when the document is issued late (지연발급): after its issue deadline, by its
// late-issuance limit (./late-issuance.ts). Later than that it is refused.
function checkWriteDate(invoice: Invoice, context: ValidationContext): boolean {
  const { date } = invoice;
  if (!isCalendarDate(date)) throw invalid(`${ROOT}.date is not a calendar date.`);
  if (date > context.today) {
    throw invalid(`${ROOT}.date must not be after today (${context.today} in Korea).`);
  }
  if (context.deadline === 'ignored') return false;
  const basis: TimingBasis = { taxType: windowTaxType(invoice),
    supplier: context.supplierPeriods, added: context.holidays };
  const timing = issueTiming(date, context.today, basis);
  if (timing.kind === 'too-late') {
    throw invalid(`${ROOT}.date ${date} is past its late-issuance limit. ` +
      tooLateReason(date, timing, basis));
  }
  return timing.kind === 'late';
}

function checkItemDates(invoice: Invoice): void {
  const month = invoice.date.slice(0, 7);
  invoice.items.forEach((item, index) => {
    const path = `${ROOT}.items[${index}].date`;
    if (!isCalendarDate(item.date)) throw invalid(`${path} is not a calendar date.`);
    if (item.date.slice(0, 7) !== month) {
      throw invalid(`${path} must be in the month of ${ROOT}.date (${month}).`);
    }
    if (item.date > invoice.date) throw invalid(`${path} must not be after ${ROOT}.date.`);
  });
}

// ---- Parties ------------------------------------------------------------------------------

// The party that signs (the supplier, or the trustee of a trustee document) is the issuer the
// Supplier-Key names.
function checkSupplier(supplier: Supplier | Broker, issuer: ValidationContext['supplier'],
  path = `${ROOT}.supplier`, why = 'the supplier must be that issuer'): void {
  const defect = businessRegistrationNumberDefect(supplier.identificationNumber);
  if (defect !== null) {
    throw new ApiError('INVALID_BUSINESS_REGISTRATION_NUMBER',
      `${path}.identificationNumber ${defect}.`);
  }
  if (supplier.identificationNumber !== issuer.identificationNumber) {
    throw invalid(`${path}.identificationNumber must be the number of the issuer named by ` +
      `Supplier-Key: ${why}.`);
  }
  if ((supplier.taxRegistrationId ?? null) !== issuer.taxRegistrationId) {
    const expected = issuer.taxRegistrationId ?? 'null';
    throw invalid(`${path}.taxRegistrationId must be ${expected}, that of the issuer named ` +
      `by Supplier-Key: ${why}.`);
  }
}

// A trustee document (위수탁): the trustee (broker) issues and signs, so it is the issuer the
// Supplier-Key names; the supplier is the business it issues for (위탁자), another business
// with a valid number. Whose number goes where follows 부가가치세법 시행령 §69①: the document is
// in the supplier's name, with the trustee's number added.
function checkTrustee(invoice: Invoice, broker: Broker, context: ValidationContext): void {
  const path = `${ROOT}.broker`;
  if (context.broker === 'refused') {
    throw invalid(`${path} must be null: a reverse issuance request is issued by the supplier ` +
      'itself, never by a trustee.');
  }
  checkSupplier(broker, context.supplier, path, 'the trustee must be that issuer, which ' +
    'signs the document');
  const supplierPath = `${ROOT}.supplier`;
  const defect = businessRegistrationNumberDefect(invoice.supplier.identificationNumber);
  if (defect !== null) {
    throw new ApiError('INVALID_BUSINESS_REGISTRATION_NUMBER',
      `${supplierPath}.identificationNumber ${defect}.`);
  }
  if (invoice.supplier.identificationNumber === broker.identificationNumber) {
    throw invalid(`${supplierPath}.identificationNumber must differ from ${path}` +
      '.identificationNumber: a trustee issues for another business (위탁자); a business ' +
      'issuing for itself leaves broker out.');
  }
}

// The trustee sells for the supplier to someone else; it is never the buyer.
function checkNotBroker(supplied: Supplied, broker: Broker): void {
  if (supplied.identificationNumber === broker.identificationNumber &&
    (supplied.taxRegistrationId ?? null) === (broker.taxRegistrationId ?? null)) {
    throw invalid(`${ROOT}.supplied must be a business other than ${ROOT}.broker: both have the ` +
      'same identificationNumber and taxRegistrationId.');
  }
}

// Ten digits are a business registration number with a check digit. Thirteen are a resident or
// foreigner registration number, which we accept without a checksum: numbers issued since
// October 2020 no longer end in one.
function checkSupplied(supplied: Supplied, supplier: Supplier): void {
  const path = `${ROOT}.supplied`;
  const number = supplied.identificationNumber;
  const defect = number.length === 10 ? businessRegistrationNumberDefect(number) : null;
  if (defect !== null) {
    throw new ApiError('INVALID_BUSINESS_REGISTRATION_NUMBER',
      `${path}.identificationNumber ${defect}.`);
  }
  const sameNumber = number === supplier.identificationNumber;
  const samePlace = (supplied.taxRegistrationId ?? null) === (supplier.taxRegistrationId ?? null);
  if (sameNumber && samePlace) {
    throw invalid(`${path} must be a business other than ${ROOT}.supplier: both have the same ` +
      'identificationNumber and taxRegistrationId.');
  }
  checkManagerEmails(supplied.managers, `${path}.managers`);
}

// Mail providers treat addresses case-insensitively in practice, so `Tax@x.kr` and `tax@x.kr`
// would send the same invoice twice to one mailbox.
function checkManagerEmails(managers: Manager[], path: string): void {
  const seen = new Map<string, number>();
  managers.forEach((manager, index) => {
    const email = manager.email.toLowerCase();
    const first = seen.get(email);
    if (first !== undefined) {
      throw invalid(`${path}[${index}].email must differ from ${path}[${first}].email.`);
    }
    seen.set(email, index);
  });
}

// ---- Amounts ------------------------------------------------------------------------------

// The first item decides: a null tax makes a tax-exempt invoice (계산서), an integer a tax
// invoice (세금계산서). One document cannot be both. A tax invoice whose every tax is 0 is
// zero-rated (영세율); one with any other tax is taxable, and then every item is taxed at 10%
// (checkItemArithmetic), so zero-rated and taxed items never share a document.
function checkTaxType(items: Item[]): ValidatedInvoice['taxType'] {
  const taxFree = items[0]!.tax === null;
  const index = items.findIndex((item) => (item.tax === null) !== taxFree);
  if (index === -1) {
    if (taxFree) return 'TAX_FREE';
    return items.every((item) => item.tax === 0) ? 'ZERO_RATED' : 'TAXABLE';
  }
  const path = `${ROOT}.items[${index}].tax`;
  if (taxFree) {
    throw invalid(`${path} must be null like ${ROOT}.items[0].tax: every item of a tax-exempt ` +
      'invoice has a null tax.');
  }
  throw invalid(`${path} must be an integer like ${ROOT}.items[0].tax: every item of a tax ` +
    'invoice has a tax (0 for zero-rated supply); null is for tax-exempt invoices only.');
}

function checkItemAmounts(item: Item, index: number, rule: AmountRule): void {
  const path = `${ROOT}.items[${index}]`;
  const { supplyCost } = item;
  const tax = item.tax ?? 0;
  if (rule === 'forward') {
    if (supplyCost < 0) {
      throw invalid(`${path}.supplyCost must not be negative; only an amendment may carry ` +
        'negative amounts.');
    }
    if (tax < 0) {
      throw invalid(`${path}.tax must not be negative; only an amendment may carry negative ` +
        'amounts.');
    }
    if (tax > supplyCost) throw invalid(`${path}.tax must not exceed ${path}.supplyCost.`);
    return;
  }
  if (tax !== 0 && Math.sign(tax) !== Math.sign(supplyCost)) {
    throw invalid(`${path}.tax must have the sign of ${path}.supplyCost, or be 0.`);
  }
  if (Math.abs(tax) > Math.abs(supplyCost)) {
    throw invalid(`${path}.tax must not exceed ${path}.supplyCost in absolute value.`);
  }
}

function checkItemArithmetic(item: Item, index: number, taxType: TaxType): void {
  const path = `${ROOT}.items[${index}]`;
  const { quantity, unitPrice, supplyCost } = item;
  if (quantity !== null && quantity !== undefined && unitPrice !== null &&
    unitPrice !== undefined && !isSupplyCostOfQuantity(quantity, unitPrice, supplyCost)) {
    throw invalid(`${path}.supplyCost must be ${path}.quantity × ${path}.unitPrice ` +
      `(${formatProduct(quantity, unitPrice)}) in whole won, less than 1 won from it; got ` +
      `${supplyCost}.`);
  }
  const tax = item.tax ?? 0;
  if (taxType !== 'TAXABLE' || isItemTaxAtRate(supplyCost, tax)) return;
  const expected = expectedTax(supplyCost);
  const zeroRated = tax === 0 ? ' Zero-rated items (tax 0) cannot share a tax invoice with ' +
    'taxed items: issue them on a zero-rated invoice of their own.' : '';
  throw invalid(`${path}.tax must be 10% of ${path}.supplyCost: ${expected}, give or take 1 ` +
    `won for rounding; got ${tax}.${zeroRated}`);
}

// Catches the bias the item tolerance lets through (every item a won over): items truncated,
// rounded or rounded up one by one add up to within a won per item of 10% of the supply cost
// total (src/domain/tax-amounts.ts), so an honest rounding never fails here.
function checkTaxTotal(totals: ValidatedInvoice['totals'], itemCount: number): void {
  if (isTaxTotalAtRate(totals.supplyCost, totals.tax, itemCount)) return;
  throw invalid(`${ROOT}.items: the tax total must be 10% of the supply cost total ` +
    `${totals.supplyCost}: ${expectedTax(totals.supplyCost)}, give or take ` +
    `${taxTotalToleranceWon(itemCount)} won (1 per item); got ${totals.tax}.`);
}

function checkTotals(totals: ValidatedInvoice['totals'], rule: AmountRule): void {
  if (rule === 'forward' && totals.supplyCost <= 0) {
    throw invalid(`${ROOT}.items must have a supply cost total above 0.`);
  }
  if (rule === 'amendment' && totals.supplyCost === 0 && totals.tax === 0) {
    throw invalid(`${ROOT}.items must change the supply cost or the tax: both totals are 0.`);
  }
}

// ---- Payment breakdown -----------------------------------------------------------------------

// The parts of the payment breakdown add up to at most the total (of an amendment that lowers
// the amounts, at most the size of its negative total): what is left is simply not broken down.
export function checkPayment(payment: Payment | null | undefined,
  totals: ValidatedInvoice['totals']): void {
  if (payment == null) return;
  const sum = (payment.cash ?? 0) + (payment.check ?? 0) + (payment.note ?? 0) +
    (payment.credit ?? 0);
  const limit = Math.abs(totals.total);
  if (sum > limit) {
    throw invalid(`${ROOT}.payment adds up to ${sum} won (cash + check + note + credit), more ` +
      `than the total amount of ${limit} won (supply cost + tax); its parts may add up to at ` +
      'most the total.');
  }
}
