// The documents each amendment reason makes from its original (amendments/): how many, their
// signs, write dates, item dates and remarks, the reason and original
// they name, and the body that does not fit the original (400). Then when an original may be
// amended at all: only TRANSMITTED, not an amendment document unless it replaces an original,
// and not once an amendment in effect rules the new one out (409). Pure functions, tested
// without a database.
import { describe, expect, it } from 'vitest';
import {
  checkAmendable,
  draftAmendment,
  type AmendmentRequest,
} from '../../../src/areas/tax-invoices/amendments/draft.ts';
import {
  letterOfCreditDeadline,
} from '../../../src/areas/tax-invoices/amendments/local-letter-of-credit.ts';
import {
  AMENDMENT_DESCRIPTION_LENGTH_MAX,
  originalDateNote,
  REMARK_LENGTH_MAX,
  type ExistingAmendment,
  type OriginalDocument,
} from '../../../src/areas/tax-invoices/amendments/reason-rule.ts';
import {
  AMENDMENT_REASONS,
  type AmendmentReason,
  type Invoice,
} from '../../../src/areas/tax-invoices/schemas.ts';
import { validateInvoice } from '../../../src/areas/tax-invoices/acceptance/validation.ts';
import { NO_ADDED_HOLIDAYS } from '../../../src/domain/business-days.ts';
import { ApiError } from '../../../src/platform/errors.ts';
import {
  GENERAL_SUPPLIER_PERIODS,
} from '../../../src/areas/tax-invoices/acceptance/late-issuance.ts';

const SUPPLIER_NUMBER = '1248100998';
const RECIPIENT_NUMBER = '2208162517';
const WRITE_DATE = '2026-11-20';
const APPROVAL_NUMBER = '202611204100000000000001';
const TODAY = '2026-12-03';
const SUPPLIER = { identificationNumber: SUPPLIER_NUMBER, taxRegistrationId: null };
const CONTEXT = { today: TODAY, supplier: SUPPLIER, holidays: NO_ADDED_HOLIDAYS,
  supplierPeriods: GENERAL_SUPPLIER_PERIODS };

const INVOICE: Invoice = {
  date: WRITE_DATE,
  purpose: 'CLAIM',
  supplier: {
    identificationNumber: SUPPLIER_NUMBER,
    organizationName: '주식회사 이택스',
    representativeName: '홍길동',
    manager: { email: 'tax@etax.example', name: '김담당' },
  },
  supplied: {
    identificationNumber: RECIPIENT_NUMBER,
    organizationName: '주식회사 받는곳',
    representativeName: '이대표',
    managers: [{ email: 'ap@buyer.example' }],
  },
  items: [
    { date: WRITE_DATE, name: '클라우드 사용료', quantity: 10, unitPrice: 10_000,
      supplyCost: 100_000, tax: 10_000 },
    { date: '2026-11-01', name: '설치비', supplyCost: 50_000, tax: 5_000 },
  ],
  description: '11월 이용료',
};

// A transmitted original as the store returns it: the document normalised by validation.
function original(edit: (invoice: Invoice) => void = () => {},
  fields: Partial<OriginalDocument> = {}): OriginalDocument {
  const invoice = structuredClone(INVOICE);
  edit(invoice);
  // Stored originals may predate the VAT rate check (a taxed and a zero tax on one document).
  const validated = validateInvoice(invoice, { today: WRITE_DATE, supplier: SUPPLIER,
    amounts: 'forward', deadline: 'enforced', holidays: NO_ADDED_HOLIDAYS,
    supplierPeriods: GENERAL_SUPPLIER_PERIODS, amountsFrom: 'original' });
  return {
    issuanceKey: 'txi_ORIGINAL', status: 'TRANSMITTED', invoice: validated.invoice,
    writeDate: invoice.date, taxType: validated.taxType, ntsTransactionId: APPROVAL_NUMBER,
    amendmentReason: null, originalIssuanceKey: null,
    supplyCostTotal: validated.totals.supplyCost, taxTotal: validated.totals.tax,
    ...fields,
  };
}

function amendment(reason: AmendmentReason, fields: Partial<ExistingAmendment> = {}):
  ExistingAmendment {
  return { issuanceKey: `txi_${reason}`, status: 'TRANSMITTED',
    amendmentReason: AMENDMENT_REASONS[reason], supplyCostTotal: -150_000, taxTotal: -15_000,
    ...fields };
}

function failure(run: () => unknown): ApiError {
  try {
    run();
  } catch (error) {
    if (error instanceof ApiError) return error;
    throw error;
  }
  throw new Error('the amendment was accepted');
}

function expectError(error: ApiError, code: string, message: RegExp | string) {
  expect(error.code).toBe(code);
  expect(error.message).toMatch(message);
}

function draft(request: AmendmentRequest, options: { original?: OriginalDocument;
  existing?: ExistingAmendment[]; today?: string; holidays?: ReadonlySet<string> } = {}) {
  return draftAmendment(options.original ?? original(), options.existing ?? [], request,
    { ...CONTEXT, today: options.today ?? TODAY, holidays: options.holidays ?? CONTEXT.holidays });
}

const THE_ORIGINAL = { originalIssuanceKey: 'txi_ORIGINAL',
  originalNtsTransactionId: APPROVAL_NUMBER };

describe('termination (계약의 해제, code 4)', () => {
  it('makes one copy with every amount negated, written and dated on the termination date', () => {
    const [document, ...rest] = draft({ reason: 'TERMINATION', date: '2026-12-02' });
    expect(rest).toEqual([]);
    expect(document!.amendment).toEqual({ reason: 'TERMINATION', ...THE_ORIGINAL });
    const { invoice, totals, taxType } = document!.validated;
    expect(invoice.date).toBe('2026-12-02');
    expect(invoice.items.map((item) => item.date)).toEqual(['2026-12-02', '2026-12-02']);
    expect(invoice.items[0]).toMatchObject({ quantity: -10, unitPrice: 10_000,
      supplyCost: -100_000, tax: -10_000 });
    expect(invoice.items[1]).toMatchObject({ quantity: null, supplyCost: -50_000,
      tax: -5_000 });
    expect(totals).toEqual({ supplyCost: -150_000, tax: -15_000, total: -165_000 });
    expect(taxType).toBe('TAXABLE');
    expect(invoice.description).toBe('당초 작성일자 2026-11-20 11월 이용료');
    expect(invoice.supplier).toEqual(original().invoice.supplier);
    expect(invoice.supplied).toEqual(original().invoice.supplied);
  });

  it('notes the original write date in the remark even when the original has none', () => {
    const [document] = draft({ reason: 'TERMINATION', date: TODAY },
      { original: original((invoice) => { invoice.description = null; }) });
    expect(document!.validated.invoice.description).toBe('당초 작성일자 2026-11-20');
    // Without the note the remark would be the original's: the decree's note is never left out.
    expect(document!.validated.invoice.description).not.toBeNull();
  });

  it('keeps zero amounts at 0, never -0', () => {
    const [document] = draft({ reason: 'TERMINATION', date: TODAY },
      { original: original((invoice) => { invoice.items[1]!.tax = 0; }) });
    expect(Object.is(document!.validated.invoice.items[1]!.tax, 0)).toBe(true);
  });

  it('refuses a date before the original\'s write date with 400 naming body.date', () => {
    expectError(failure(() => draft({ reason: 'TERMINATION', date: '2026-11-19' })),
      'INVALID_REQUEST', /^body\.date must not be before 2026-11-20/);
  });

  it('refuses a future date with 400', () => {
    expectError(failure(() => draft({ reason: 'TERMINATION', date: '2026-12-04' })),
      'INVALID_REQUEST', /^body\.date must not be after today/);
  });

  it('is a late issuance after the issue deadline of the termination date', () => {
    const [onTime] = draft({ reason: 'TERMINATION', date: '2026-11-25' }, { today: '2026-12-10' });
    expect(onTime!.validated.lateIssuance).toBe(false);
    const [late] = draft({ reason: 'TERMINATION', date: '2026-11-25' }, { today: '2026-12-11' });
    expect(late!.validated.lateIssuance).toBe(true);
  });

  it('is refused after the VAT return deadline of the termination date', () => {
    expectError(failure(() => draft({ reason: 'TERMINATION', date: '2026-11-25' },
      { today: '2027-01-26' })), 'INVALID_REQUEST',
    /past its late-issuance limit.*only until 2027-01-25/);
  });

  it('is refused with 409 TAX_INVOICE_NOT_AMENDABLE when an item is negative', () => {
    // Forward validation refuses negative items, so the stored row is edited afterwards, as
    // another way of issuing might have stored it.
    const negative = original();
    negative.invoice.items[1] = { ...negative.invoice.items[1]!, supplyCost: -10_000,
      tax: -1_000 };
    expectError(failure(() => checkAmendable(negative, [], 'TERMINATION')),
      'TAX_INVOICE_NOT_AMENDABLE', /negative supply cost/);
  });
});

describe('double issuance (착오에 의한 이중발급, code 6)', () => {
  it('makes one negative copy with the original\'s write date, past its deadline too', () => {
    const [document, ...rest] = draft({ reason: 'DOUBLE_ISSUANCE' }, { today: '2027-03-02' });
    expect(rest).toEqual([]);
    expect(document!.amendment).toEqual({ reason: 'DOUBLE_ISSUANCE', ...THE_ORIGINAL });
    const { invoice, totals } = document!.validated;
    expect(invoice.date).toBe(WRITE_DATE);
    expect(invoice.items.map((item) => item.date)).toEqual([WRITE_DATE, '2026-11-01']);
    expect(totals).toEqual({ supplyCost: -150_000, tax: -15_000, total: -165_000 });
  });
});

describe('entry correction (기재사항 착오정정, code 1)', () => {
  const corrected = () => {
    const invoice = structuredClone(INVOICE);
    invoice.supplied.organizationName = '주식회사 받는곳 (정정)';
    return invoice;
  };

  it('makes the negative original, then the corrected document, both naming the original',
    () => {
      const documents = draft({ reason: 'ENTRY_CORRECTION', invoice: corrected() },
        { today: '2027-03-02' });
      expect(documents).toHaveLength(2);
      const [cancellation, correction] = documents.map((document) => document.validated);
      expect(cancellation!.invoice.date).toBe(WRITE_DATE);
      expect(cancellation!.totals).toEqual({ supplyCost: -150_000, tax: -15_000,
        total: -165_000 });
      expect(correction!.invoice.supplied.organizationName).toBe('주식회사 받는곳 (정정)');
      expect(correction!.totals).toEqual({ supplyCost: 150_000, tax: 15_000, total: 165_000 });
      for (const document of documents) {
        expect(document.amendment).toEqual({ reason: 'ENTRY_CORRECTION', ...THE_ORIGINAL });
      }
    });

  it('accepts a corrected write date', () => {
    const invoice = corrected();
    invoice.date = '2026-11-21';
    const [, correction] = draft({ reason: 'ENTRY_CORRECTION', invoice });
    expect(correction!.validated.invoice.date).toBe('2026-11-21');
  });

  it('refuses a corrected document equal to the original with 400', () => {
    expectError(failure(() => draft({ reason: 'ENTRY_CORRECTION',
      invoice: structuredClone(INVOICE) })), 'INVALID_REQUEST', /^body\.invoice is the same/);
  });

  it('refuses a change of tax type with 400 and points to doubleIssuance', () => {
    const invoice = corrected();
    invoice.items = invoice.items.map((item) => ({ ...item, tax: null }));
    expectError(failure(() => draft({ reason: 'ENTRY_CORRECTION', invoice })),
      'INVALID_REQUEST', /^body\.invoice\.items must keep the tax type.*doubleIssuance/);
  });

  it('names body.invoice fields in validation messages', () => {
    const invoice = corrected();
    invoice.items[0]!.supplyCost = -1;
    invoice.items[0]!.tax = 0;
    expectError(failure(() => draft({ reason: 'ENTRY_CORRECTION', invoice })),
      'INVALID_REQUEST', /^body\.invoice\.items\[0\]\.supplyCost must not be negative/);
    const otherSupplier = corrected();
    otherSupplier.supplier.identificationNumber = RECIPIENT_NUMBER;
    expectError(failure(() => draft({ reason: 'ENTRY_CORRECTION', invoice: otherSupplier })),
      'INVALID_REQUEST', /^body\.invoice\.supplier\.identificationNumber must be the number/);
  });
});

describe('supply cost change (공급가액 변동, code 2)', () => {
  it('makes one document of the differences as sent, with the original date in the remark',
    () => {
      const [document, ...rest] = draft({ reason: 'SUPPLY_COST_CHANGE', date: '2026-12-02',
        items: [{ name: '단가 인하', supplyCost: -20_000, tax: -2_000 },
          { date: '2026-12-01', name: '추가 작업', supplyCost: 5_000, tax: 500 }],
        description: '합의' });
      expect(rest).toEqual([]);
      expect(document!.amendment).toEqual({ reason: 'SUPPLY_COST_CHANGE', ...THE_ORIGINAL });
      const { invoice, totals } = document!.validated;
      expect(invoice.date).toBe('2026-12-02');
      expect(invoice.items.map((item) => [item.date, item.supplyCost, item.tax])).toEqual([
        ['2026-12-02', -20_000, -2_000], ['2026-12-01', 5_000, 500]]);
      expect(totals).toEqual({ supplyCost: -15_000, tax: -1_500, total: -16_500 });
      expect(invoice.description).toBe('당초 작성일자 2026-11-20 합의');
      expect(invoice.supplied).toEqual(original().invoice.supplied);
    });

  it('refuses an item tax that does not match the original\'s tax type', () => {
    expectError(failure(() => draft({ reason: 'SUPPLY_COST_CHANGE', date: TODAY,
      items: [{ name: '인하', supplyCost: -1_000, tax: null }] })),
    'INVALID_REQUEST', /^body\.items\[0\]\.tax must be an integer/);
    const taxFree = original((invoice) => {
      invoice.items = invoice.items.map((item) => ({ ...item, tax: null }));
    });
    expectError(failure(() => draft({ reason: 'SUPPLY_COST_CHANGE', date: TODAY,
      items: [{ name: '인하', supplyCost: -1_000, tax: 0 }] }, { original: taxFree })),
    'INVALID_REQUEST', /^body\.items\[0\]\.tax must be null/);
  });

  it('refuses a decrease below what remains after earlier amendments in effect', () => {
    const existing = [amendment('RETURNED_GOODS', { supplyCostTotal: -100_000,
      taxTotal: -10_000 }), amendment('RETURNED_GOODS', { issuanceKey: 'txi_FAILED',
      status: 'FAILED', supplyCostTotal: -50_000, taxTotal: -5_000 })];
    const decrease = (supplyCost: number) => () => draft({ reason: 'SUPPLY_COST_CHANGE',
      date: TODAY, items: [{ name: '인하', supplyCost, tax: -5_000 }] }, { existing });
    expect(decrease(-50_000)()).toHaveLength(1);
    expectError(failure(decrease(-50_001)), 'INVALID_REQUEST',
      /more supply cost than remains of txi_ORIGINAL: 50000 won/);
  });

  it('refuses a change of a taxable invoice whose tax is not 10%, even when it is 0', () => {
    expectError(failure(() => draft({ reason: 'SUPPLY_COST_CHANGE', date: TODAY,
      items: [{ name: '인하', supplyCost: -10_000, tax: 0 }] })), 'INVALID_REQUEST',
    'body.items[0].tax must be 10% of body.items[0].supplyCost: -1000, give or take 1 won ' +
      'for rounding; got 0.');
    expect(draft({ reason: 'SUPPLY_COST_CHANGE', date: TODAY,
      items: [{ name: '인하', supplyCost: -10_005, tax: -1_000 }] })[0]!.validated.taxType)
      .toBe('TAXABLE');
  });

  it('keeps a change of a zero-rated invoice zero-rated', () => {
    const zeroRated = original((invoice) => {
      invoice.items = invoice.items.map((item) => ({ ...item, tax: 0 }));
    });
    expectError(failure(() => draft({ reason: 'SUPPLY_COST_CHANGE', date: TODAY,
      items: [{ name: '인하', supplyCost: -10_000, tax: -1_000 }] }, { original: zeroRated })),
    'INVALID_REQUEST', 'body.items[0].tax must be 0: the tax invoice it amends is zero-rated ' +
      '(영세율).');
    expect(draft({ reason: 'SUPPLY_COST_CHANGE', date: TODAY,
      items: [{ name: '인하', supplyCost: -10_000, tax: 0 }] },
    { original: zeroRated })[0]!.validated.taxType).toBe('ZERO_RATED');
  });

  it('keeps the client remark short enough for the note before it', () => {
    expect(originalDateNote(WRITE_DATE).length + 1 + AMENDMENT_DESCRIPTION_LENGTH_MAX)
      .toBe(REMARK_LENGTH_MAX);
  });
});

describe('returned goods (환입, code 3)', () => {
  it('makes one document of the returned goods negated, on the return date', () => {
    const [document, ...rest] = draft({ reason: 'RETURNED_GOODS', date: '2026-12-01',
      items: [{ name: '클라우드 사용료', quantity: 2, unitPrice: 10_000, supplyCost: 20_000,
        tax: 2_000 }] });
    expect(rest).toEqual([]);
    expect(document!.amendment).toEqual({ reason: 'RETURNED_GOODS', ...THE_ORIGINAL });
    const { invoice, totals } = document!.validated;
    expect(invoice.date).toBe('2026-12-01');
    expect(invoice.items[0]).toMatchObject({ date: '2026-12-01', quantity: -2,
      unitPrice: 10_000, supplyCost: -20_000, tax: -2_000 });
    expect(totals).toEqual({ supplyCost: -20_000, tax: -2_000, total: -22_000 });
    expect(invoice.description).toBe('당초 작성일자 2026-11-20');
  });

  it('refuses a return of more than was supplied', () => {
    expectError(failure(() => draft({ reason: 'RETURNED_GOODS', date: TODAY,
      items: [{ name: '전부', supplyCost: 150_001, tax: 15_000 }] })),
    'INVALID_REQUEST', /more supply cost than remains/);
    expectError(failure(() => draft({ reason: 'RETURNED_GOODS', date: TODAY,
      items: [{ name: '전부', supplyCost: 150_000, tax: 15_001 }] })),
    'INVALID_REQUEST', /more tax than remains/);
  });
});

describe('local letter of credit (내국신용장 사후개설, code 5)', () => {
  it('makes the taxed items negated, then zero-rated, on the original date', () => {
    const withZeroRated = original((invoice) => {
      invoice.items.push({ date: WRITE_DATE, name: '수출분', supplyCost: 30_000, tax: 0 });
    });
    const documents = draft({ reason: 'LOCAL_LETTER_OF_CREDIT', openedOn: '2026-12-02' },
      { original: withZeroRated });
    expect(documents).toHaveLength(2);
    const [taxable, zeroRated] = documents.map((document) => document.validated);
    expect(taxable!.invoice.date).toBe(WRITE_DATE);
    expect(zeroRated!.invoice.date).toBe(WRITE_DATE);
    expect(taxable!.invoice.items.map((item) => [item.supplyCost, item.tax]))
      .toEqual([[-100_000, -10_000], [-50_000, -5_000]]);
    expect(zeroRated!.invoice.items.map((item) => [item.supplyCost, item.tax]))
      .toEqual([[100_000, 0], [50_000, 0]]);
    expect(taxable!.totals).toEqual({ supplyCost: -150_000, tax: -15_000, total: -165_000 });
    expect(zeroRated!.totals).toEqual({ supplyCost: 150_000, tax: 0, total: 150_000 });
    expect(taxable!.invoice.description).toBe('내국신용장 개설일 2026-12-02 11월 이용료');
    for (const document of documents) {
      expect(document.amendment).toEqual({ reason: 'LOCAL_LETTER_OF_CREDIT', ...THE_ORIGINAL });
    }
  });

  it('covers only the items asked for', () => {
    const [taxable, zeroRated] = draft({ reason: 'LOCAL_LETTER_OF_CREDIT',
      openedOn: TODAY, items: [1] });
    expect(taxable!.validated.invoice.items.map((item) => item.name)).toEqual(['설치비']);
    expect(zeroRated!.validated.totals).toEqual({ supplyCost: 50_000, tax: 0, total: 50_000 });
  });

  it('refuses an item position that is not a taxed item of the original', () => {
    expectError(failure(() => draft({ reason: 'LOCAL_LETTER_OF_CREDIT', openedOn: TODAY,
      items: [0, 2] })), 'INVALID_REQUEST', /^body\.items\[1\] must be the position/);
    const withZeroRated = original((invoice) => { invoice.items[1]!.tax = 0; });
    expectError(failure(() => draft({ reason: 'LOCAL_LETTER_OF_CREDIT', openedOn: TODAY,
      items: [1] }, { original: withZeroRated })), 'INVALID_REQUEST', /already 0/);
  });

  it('allows an opening up to 25 days after the end of the VAT period, and no later', () => {
    expect(letterOfCreditDeadline('2025-01-01')).toBe('2025-07-25');
    expect(letterOfCreditDeadline('2025-06-30')).toBe('2025-07-25');
    expect(letterOfCreditDeadline('2026-07-01')).toBe('2027-01-25');
    expect(letterOfCreditDeadline(WRITE_DATE)).toBe('2027-01-25');
    expect(draft({ reason: 'LOCAL_LETTER_OF_CREDIT', openedOn: '2027-01-25' },
      { today: '2027-02-01' })).toHaveLength(2);
    expectError(failure(() => draft({ reason: 'LOCAL_LETTER_OF_CREDIT',
      openedOn: '2027-01-26' }, { today: '2027-02-01' })), 'INVALID_REQUEST',
    /^body\.openedOn must be on or before 2027-01-25/);
  });

  it('moves the 25th day to the next business day when it is a Saturday or a holiday', () => {
    // 2026-07-25 is a Saturday: the limit is Monday the 27th, and the 28th is too late.
    expect(letterOfCreditDeadline('2026-01-01')).toBe('2026-07-27');
    expect(letterOfCreditDeadline('2026-06-30')).toBe('2026-07-27');
    // A holiday the operator added on 2027-01-25 moves it to the 26th.
    const added = new Set(['2027-01-25']);
    expect(letterOfCreditDeadline(WRITE_DATE, added)).toBe('2027-01-26');
    const holidays = { today: '2027-02-01', holidays: added };
    expect(draft({ reason: 'LOCAL_LETTER_OF_CREDIT', openedOn: '2027-01-26' },
      holidays)).toHaveLength(2);
    expectError(failure(() => draft({ reason: 'LOCAL_LETTER_OF_CREDIT',
      openedOn: '2027-01-27' }, holidays)), 'INVALID_REQUEST',
    /^body\.openedOn must be on or before 2027-01-26/);
  });

  it('refuses an opening before the original or in the future', () => {
    expectError(failure(() => draft({ reason: 'LOCAL_LETTER_OF_CREDIT',
      openedOn: '2026-11-19' })), 'INVALID_REQUEST', /^body\.openedOn must not be before/);
    expectError(failure(() => draft({ reason: 'LOCAL_LETTER_OF_CREDIT',
      openedOn: '2026-12-04' })), 'INVALID_REQUEST', /^body\.openedOn must not be after today/);
  });

  it('is refused with 409 for a tax-exempt original or one without a taxed item', () => {
    const taxFree = original((invoice) => {
      invoice.items = invoice.items.map((item) => ({ ...item, tax: null }));
    });
    expectError(failure(() => checkAmendable(taxFree, [], 'LOCAL_LETTER_OF_CREDIT')),
      'TAX_INVOICE_NOT_AMENDABLE', /tax-exempt/);
    const zeroRated = original((invoice) => {
      invoice.items = invoice.items.map((item) => ({ ...item, tax: 0 }));
    });
    expectError(failure(() => checkAmendable(zeroRated, [], 'LOCAL_LETTER_OF_CREDIT')),
      'TAX_INVOICE_NOT_AMENDABLE', /already zero-rated/);
  });
});

describe('when a tax invoice can be amended', () => {
  const REASONS = Object.keys(AMENDMENT_REASONS) as AmendmentReason[];

  it.each(['PENDING', 'ISSUED', 'TRANSMITTING', 'CANCELED', 'FAILED', 'REQUESTED'] as const)(
    'refuses a %s tax invoice with 409 TAX_INVOICE_NOT_AMENDABLE', (status) => {
      for (const reason of REASONS) {
        expectError(failure(() => checkAmendable(original(() => {}, { status }), [], reason)),
          'TAX_INVOICE_NOT_AMENDABLE', new RegExp(`^The tax invoice is ${status}; only a ` +
            'TRANSMITTED'));
      }
    });

  it('refuses an amendment document that corrects an original', () => {
    for (const by of ['TERMINATION', 'SUPPLY_COST_CHANGE', 'RETURNED_GOODS',
      'DOUBLE_ISSUANCE'] as const) {
      const document = original(() => {}, { amendmentReason: AMENDMENT_REASONS[by],
        originalIssuanceKey: 'txi_FIRST' });
      expectError(failure(() => checkAmendable(document, [], 'TERMINATION')),
        'TAX_INVOICE_NOT_AMENDABLE', /itself an amendment .* of txi_FIRST; amend that/);
    }
    const cancellation = original(() => {}, { amendmentReason: 1,
      originalIssuanceKey: 'txi_FIRST', supplyCostTotal: -150_000 });
    expectError(failure(() => checkAmendable(cancellation, [], 'TERMINATION')),
      'TAX_INVOICE_NOT_AMENDABLE', /itself an amendment/);
  });

  it('amends the corrected or zero-rated document that replaces an original', () => {
    for (const code of [1, 5]) {
      const replacement = original(() => {}, { amendmentReason: code,
        originalIssuanceKey: 'txi_FIRST' });
      const [document] = draft({ reason: 'TERMINATION', date: TODAY },
        { original: replacement });
      expect(document!.amendment?.originalIssuanceKey).toBe('txi_ORIGINAL');
    }
  });

  it('refuses any amendment once a reversal is in effect', () => {
    for (const by of ['TERMINATION', 'DOUBLE_ISSUANCE'] as const) {
      for (const reason of REASONS) {
        expectError(failure(() => checkAmendable(original(), [amendment(by)], reason)),
          'TAX_INVOICE_ALREADY_AMENDED', new RegExp(`already reversed by .* txi_${by}`));
      }
    }
    const correction = [amendment('ENTRY_CORRECTION', { issuanceKey: 'txi_MINUS' }),
      amendment('ENTRY_CORRECTION', { issuanceKey: 'txi_PLUS', supplyCostTotal: 150_000 })];
    expectError(failure(() => checkAmendable(original(), correction, 'RETURNED_GOODS')),
      'TAX_INVOICE_ALREADY_AMENDED', /txi_MINUS; amend its corrected tax invoice txi_PLUS/);
  });

  it('does not count an amendment that failed or was canceled', () => {
    for (const status of ['FAILED', 'CANCELED'] as const) {
      expect(() => checkAmendable(original(), [amendment('TERMINATION', { status })],
        'TERMINATION')).not.toThrow();
    }
  });

  it('counts an amendment still being processed', () => {
    expectError(failure(() => checkAmendable(original(),
      [amendment('TERMINATION', { status: 'PENDING' })], 'DOUBLE_ISSUANCE')),
    'TAX_INVOICE_ALREADY_AMENDED', /already reversed/);
  });

  it('refuses a reversal of a tax invoice that has other amendments', () => {
    for (const reason of ['TERMINATION', 'DOUBLE_ISSUANCE', 'ENTRY_CORRECTION'] as const) {
      expectError(failure(() => checkAmendable(original(),
        [amendment('SUPPLY_COST_CHANGE', { supplyCostTotal: 1_000, taxTotal: 100 })], reason)),
      'TAX_INVOICE_ALREADY_AMENDED', /already has the amendment txi_SUPPLY_COST_CHANGE/);
    }
  });

  it('allows changes and returns to follow one another, and one local letter of credit', () => {
    const existing = [amendment('SUPPLY_COST_CHANGE', { supplyCostTotal: -1_000,
      taxTotal: -100 }), amendment('RETURNED_GOODS', { supplyCostTotal: -1_000,
      taxTotal: -100 })];
    for (const reason of ['SUPPLY_COST_CHANGE', 'RETURNED_GOODS',
      'LOCAL_LETTER_OF_CREDIT'] as const) {
      expect(() => checkAmendable(original(), existing, reason)).not.toThrow();
    }
    const letterOfCredit = [amendment('LOCAL_LETTER_OF_CREDIT')];
    expectError(failure(() => checkAmendable(original(), letterOfCredit,
      'LOCAL_LETTER_OF_CREDIT')), 'TAX_INVOICE_ALREADY_AMENDED', /local letter of credit/);
    expect(() => checkAmendable(original(), letterOfCredit, 'RETURNED_GOODS')).not.toThrow();
  });
});
