// The rules between the fields of a tax invoice document (acceptance/validation.ts). Each rule has
// a failing example that names the field and the code it answers with, and the documents the rules
// must let through pass: taxable, zero-rated, tax-exempt, an amendment with negative amounts, a
// thirteen-digit recipient, and deadlines on the 10th, after a weekend and after a holiday. The
// result is checked too: optional fields come back as null, strings as sent.
import { describe, expect, it } from 'vitest';
import { NO_ADDED_HOLIDAYS } from '../../../src/domain/business-days.ts';
import {
  computeTotals,
  validateInvoice,
  type ValidationContext,
} from '../../../src/areas/tax-invoices/acceptance/validation.ts';
import {
  AMOUNT_ABS_MAX,
  ITEMS_MAX,
  type Invoice,
} from '../../../src/areas/tax-invoices/schemas.ts';
import { ApiError } from '../../../src/platform/errors.ts';
import {
  GENERAL_SUPPLIER_PERIODS,
} from '../../../src/areas/tax-invoices/acceptance/late-issuance.ts';

const SUPPLIER_NUMBER = '1248100998';
const RECIPIENT_NUMBER = '2208162517';

const CONTEXT: ValidationContext = {
  today: '2026-11-22',
  supplier: { identificationNumber: SUPPLIER_NUMBER, taxRegistrationId: null },
  amounts: 'forward',
  deadline: 'enforced',
  holidays: NO_ADDED_HOLIDAYS,
  supplierPeriods: GENERAL_SUPPLIER_PERIODS,
};

const BASE: Invoice = {
  date: '2026-11-20',
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
    { date: '2026-11-20', name: '클라우드 사용료', supplyCost: 100_000, tax: 10_000 },
    { date: '2026-11-01', name: '설치비', supplyCost: 50_000, tax: 5_000 },
  ],
};

// A copy of the base document, changed by `edit`.
function build(edit: (invoice: Invoice) => void = () => {}): Invoice {
  const invoice = structuredClone(BASE);
  edit(invoice);
  return invoice;
}

function failure(invoice: Invoice, context: Partial<ValidationContext> = {}): ApiError {
  try {
    validateInvoice(invoice, { ...CONTEXT, ...context });
  } catch (error) {
    if (error instanceof ApiError) return error;
    throw error;
  }
  throw new Error('validateInvoice accepted the document');
}

function dayAfter(date: string): string {
  return new Date(Date.parse(`${date}T00:00:00Z`) + 86_400_000).toISOString().slice(0, 10);
}

function expectInvalid(error: ApiError, message: string | RegExp) {
  expect(error.code).toBe('INVALID_REQUEST');
  expect(error.status).toBe(400);
  if (typeof message === 'string') expect(error.message).toBe(message);
  else expect(error.message).toMatch(message);
}

describe('validating a tax invoice', () => {
  describe('documents that pass', () => {
    it('returns a taxable invoice with its totals, deadline and counterpart', () => {
      const result = validateInvoice(build(), CONTEXT);
      expect(result.taxType).toBe('TAXABLE');
      expect(result.totals).toEqual({ supplyCost: 150_000, tax: 15_000, total: 165_000 });
      expect(result.issueDeadline).toBe('2026-12-10');
      expect(result.counterpartNumber).toBe(RECIPIENT_NUMBER);
    });

    it('returns absent optional fields as null and strings exactly as sent', () => {
      const invoice = build((draft) => {
        draft.supplier.representativeName = ' 홍길동 ';
        draft.items[0]!.specification = '월 구독';
      });
      const result = validateInvoice(invoice, CONTEXT);
      expect(result.invoice).toEqual({
        date: '2026-11-20',
        purpose: 'CLAIM',
        supplier: {
          identificationNumber: SUPPLIER_NUMBER, taxRegistrationId: null,
          organizationName: '주식회사 이택스', representativeName: ' 홍길동 ',
          address: null, businessType: null, businessItem: null,
          manager: { email: 'tax@etax.example', name: '김담당', telephone: null },
        },
        supplied: {
          identificationNumber: RECIPIENT_NUMBER, taxRegistrationId: null,
          organizationName: '주식회사 받는곳', representativeName: '이대표',
          address: null, businessType: null, businessItem: null,
          managers: [{ email: 'ap@buyer.example', name: null, telephone: null }],
        },
        items: [
          { date: '2026-11-20', name: '클라우드 사용료', specification: '월 구독', quantity: null,
            unitPrice: null, supplyCost: 100_000, tax: 10_000, description: null },
          { date: '2026-11-01', name: '설치비', specification: null, quantity: null,
            unitPrice: null, supplyCost: 50_000, tax: 5_000, description: null },
        ],
        description: null,
      });
      expect(invoice.supplier.address).toBeUndefined(); // The input is left alone.
    });

    it('accepts a zero-rated invoice whose every tax is 0', () => {
      const result = validateInvoice(build((draft) => {
        for (const item of draft.items) item.tax = 0;
      }), CONTEXT);
      expect(result.taxType).toBe('ZERO_RATED');
      expect(result.totals).toEqual({ supplyCost: 150_000, tax: 0, total: 150_000 });
    });

    it('accepts a tax-exempt invoice whose every tax is null, with a tax total of 0', () => {
      const result = validateInvoice(build((draft) => {
        for (const item of draft.items) item.tax = null;
      }), CONTEXT);
      expect(result.taxType).toBe('TAX_FREE');
      expect(result.totals).toEqual({ supplyCost: 150_000, tax: 0, total: 150_000 });
    });

    it('accepts negative amounts on an amendment', () => {
      const result = validateInvoice(build((draft) => {
        draft.items[0]!.supplyCost = -100_000;
        draft.items[0]!.tax = -10_000;
        draft.items[1]!.supplyCost = 20_000;
        draft.items[1]!.tax = 2_000;
      }), { ...CONTEXT, amounts: 'amendment' });
      expect(result.totals).toEqual({ supplyCost: -80_000, tax: -8_000, total: -88_000 });
    });

    it('accepts a copied amendment whose supply costs cancel out when the tax changes', () => {
      const result = validateInvoice(build((draft) => {
        draft.items[0]!.supplyCost = 1_000;
        draft.items[0]!.tax = 100;
        draft.items[1]!.supplyCost = -1_000;
        draft.items[1]!.tax = 0;
      }), { ...CONTEXT, amounts: 'amendment', amountsFrom: 'original' });
      expect(result.totals).toEqual({ supplyCost: 0, tax: 100, total: 100 });
    });

    it('accepts a thirteen-digit recipient number without a checksum', () => {
      const result = validateInvoice(build((draft) => {
        draft.supplied.identificationNumber = '9001015234567';
      }), CONTEXT);
      expect(result.counterpartNumber).toBe('9001015234567');
    });

    it('accepts a supplier sub-place that matches the issuer, sent or left out as null', () => {
      const issuer = { identificationNumber: SUPPLIER_NUMBER, taxRegistrationId: '0001' };
      const withPlace = build((draft) => { draft.supplier.taxRegistrationId = '0001'; });
      expect(validateInvoice(withPlace, { ...CONTEXT, supplier: issuer }).taxType).toBe('TAXABLE');
      const withNull = build((draft) => { draft.supplier.taxRegistrationId = null; });
      expect(validateInvoice(withNull, CONTEXT).invoice.supplier.taxRegistrationId).toBeNull();
    });

    it('accepts the same registration number at another sub-place as the recipient', () => {
      const invoice = build((draft) => {
        draft.supplied.identificationNumber = SUPPLIER_NUMBER;
        draft.supplied.taxRegistrationId = '0002';
      });
      expect(validateInvoice(invoice, CONTEXT).counterpartNumber).toBe(SUPPLIER_NUMBER);
    });

    it('accepts two managers with different emails and the write date of today', () => {
      const invoice = build((draft) => {
        draft.date = '2026-11-22';
        draft.supplied.managers.push({ email: 'cc@buyer.example', name: null });
      });
      expect(validateInvoice(invoice, CONTEXT).invoice.supplied.managers).toHaveLength(2);
    });
  });

  describe('the issue deadline', () => {
    const dated = (date: string) => build((draft) => {
      draft.date = date;
      for (const item of draft.items) item.date = date;
    });

    it.each([
      ['2026-10-31', '2026-11-10', 'exactly on the 10th'],
      ['2026-09-15', '2026-10-12', 'moved past Saturday 10-10 and Sunday 10-11'],
      ['2026-12-31', '2027-01-11', 'moved into the next year past Sunday 01-10'],
      ['2024-01-31', '2024-02-13', 'moved past Seollal and its substitute day'],
      ['2027-09-30', '2027-10-12', 'moved past the substitute day for 한글날'],
    ])('accepts %s on time until %s (%s) and late the day after', (date, deadline) => {
      const onTime = validateInvoice(dated(date), { ...CONTEXT, today: deadline });
      expect(onTime.issueDeadline).toBe(deadline);
      expect(onTime.lateIssuance).toBe(false);
      const late = validateInvoice(dated(date), { ...CONTEXT, today: dayAfter(deadline) });
      expect(late.lateIssuance).toBe(true);
    });

    it.each([
      ['2026-10-31', '2027-01-25', 'second period: 25 January, a Monday'],
      ['2024-01-31', '2024-07-25', 'first period: 25 July, a Thursday'],
      ['2026-06-15', '2026-07-27', 'first period: 25 July 2026 is a Saturday, so Monday 27'],
      ['2027-09-30', '2028-01-25', 'second period of 2027'],
    ])('issues %s late through %s (%s) and refuses it the day after, saying why',
      (date, limit) => {
        expect(validateInvoice(dated(date), { ...CONTEXT, today: limit }).lateIssuance)
          .toBe(true);
        const refused = failure(dated(date), { today: dayAfter(limit) });
        expect(refused).toMatchObject({ code: 'INVALID_REQUEST', status: 400 });
        expect(refused.message).toContain(`body.date ${date} is past its late-issuance limit.`);
        expect(refused.message).toContain(`only until ${limit}, the final VAT return deadline`);
        expect(refused.message).toContain('counts as not issued (2% penalty)');
      });

    it('moves the deadline past a day the operator added, beyond the table', () => {
      // 2029-01-10 is a Wednesday the built-in table does not reach.
      const holidays = new Set(['2029-01-10', '2029-01-11']);
      expect(validateInvoice(dated('2028-12-20'), { ...CONTEXT, today: '2029-01-11' })
        .lateIssuance).toBe(true);
      const moved = validateInvoice(dated('2028-12-20'), { ...CONTEXT, today: '2029-01-12',
        holidays });
      expect(moved.issueDeadline).toBe('2029-01-12');
      expect(moved.lateIssuance).toBe(false);
    });

    it('moves the late-issuance limit past a day the operator added', () => {
      // 2029-01-25 is a Thursday; an added holiday makes the limit Friday the 26th.
      const holidays = new Set(['2029-01-25']);
      expect(failure(dated('2028-12-20'), { today: '2029-01-26' }).code)
        .toBe('INVALID_REQUEST');
      expect(validateInvoice(dated('2028-12-20'), { ...CONTEXT, today: '2029-01-26', holidays })
        .lateIssuance).toBe(true);
    });

    it('lets an amendment document through after the deadline when told to ignore it', () => {
      const context = { ...CONTEXT, amounts: 'amendment', deadline: 'ignored' } as const;
      const result = validateInvoice(dated('2026-01-15'), context);
      expect(result.issueDeadline).toBe('2026-02-10');
    });
  });

  describe('dates', () => {
    it('refuses a write date that is not a calendar date', () => {
      expectInvalid(failure(build((draft) => { draft.date = '2026-02-30'; })),
        'body.date is not a calendar date.');
    });

    it('refuses a write date after today, even when the deadline is ignored', () => {
      const message = 'body.date must not be after today (2026-11-22 in Korea).';
      const tomorrow = build((draft) => { draft.date = '2026-11-23'; });
      expectInvalid(failure(tomorrow), message);
      expectInvalid(failure(tomorrow, { deadline: 'ignored' }), message);
    });

    it('refuses an item date that is not a calendar date', () => {
      expectInvalid(failure(build((draft) => { draft.items[1]!.date = '2026-11-31'; })),
        'body.items[1].date is not a calendar date.');
    });

    it.each([
      ['2026-10-31', 'the month before'],
      ['2025-11-20', 'the same month of another year'],
    ])('refuses an item date of %s (%s)', (date) => {
      expectInvalid(failure(build((draft) => { draft.items[1]!.date = date; })),
        'body.items[1].date must be in the month of body.date (2026-11).');
    });

    it('refuses an item date after the write date', () => {
      expectInvalid(failure(build((draft) => { draft.items[0]!.date = '2026-11-21'; })),
        'body.items[0].date must not be after body.date.');
    });
  });

  describe('the supplier', () => {
    it('refuses a number that fails the checksum with INVALID_BUSINESS_REGISTRATION_NUMBER', () => {
      const error = failure(build((draft) => {
        draft.supplier.identificationNumber = '1248100999';
      }), { supplier: { identificationNumber: '1248100999', taxRegistrationId: null } });
      expect(error.code).toBe('INVALID_BUSINESS_REGISTRATION_NUMBER');
      expect(error.message).toBe('body.supplier.identificationNumber does not pass the ' +
        'business registration number checksum.');
    });

    it('refuses a valid number other than the issuer of the Supplier-Key', () => {
      expectInvalid(failure(build((draft) => {
        draft.supplier.identificationNumber = '1208147521';
      })), 'body.supplier.identificationNumber must be the number of the issuer named by ' +
        'Supplier-Key: the supplier must be that issuer.');
    });

    it('refuses a missing sub-place when the issuer has one', () => {
      expectInvalid(failure(build(), {
        supplier: { identificationNumber: SUPPLIER_NUMBER, taxRegistrationId: '0001' },
      }), 'body.supplier.taxRegistrationId must be 0001, that of the issuer named by ' +
        'Supplier-Key: the supplier must be that issuer.');
    });

    it('refuses a sub-place when the issuer has none', () => {
      expectInvalid(failure(build((draft) => { draft.supplier.taxRegistrationId = '0002'; })),
        /^body\.supplier\.taxRegistrationId must be null, that of the issuer named by/);
    });
  });

  describe('the recipient', () => {
    it.each([['0000000000', '000'], ['1000000009', '100']])(
      'refuses %s, whose checksum passes but whose tax office code %s is never assigned',
      (number, prefix) => {
        const error = failure(build((draft) => { draft.supplied.identificationNumber = number; }));
        expect(error.code).toBe('INVALID_BUSINESS_REGISTRATION_NUMBER');
        expect(error.message).toBe(`body.supplied.identificationNumber starts with ${prefix}, ` +
          'a tax office code below 101 that is never assigned.');
      });

    it('accepts the lowest assigned tax office code, 101', () => {
      expect(validateInvoice(build((draft) => {
        draft.supplied.identificationNumber = '1010000002';
      }), CONTEXT).counterpartNumber).toBe('1010000002');
    });

    it('refuses a ten-digit number that fails the checksum', () => {
      const error = failure(build((draft) => {
        draft.supplied.identificationNumber = '2208162518';
      }));
      expect(error.code).toBe('INVALID_BUSINESS_REGISTRATION_NUMBER');
      expect(error.message).toBe('body.supplied.identificationNumber does not pass the ' +
        'business registration number checksum.');
    });

    it.each([
      [undefined, undefined], [null, undefined], ['0003', '0003'],
    ])('refuses the supplier itself (sub-places %j and %j)', (supplierPlace, suppliedPlace) => {
      const invoice = build((draft) => {
        draft.supplier.taxRegistrationId = supplierPlace;
        draft.supplied.identificationNumber = SUPPLIER_NUMBER;
        draft.supplied.taxRegistrationId = suppliedPlace;
      });
      const issuer = {
        identificationNumber: SUPPLIER_NUMBER, taxRegistrationId: suppliedPlace ?? null,
      };
      expectInvalid(failure(invoice, { supplier: issuer }), 'body.supplied must be a business ' +
        'other than body.supplier: both have the same identificationNumber and taxRegistrationId.');
    });

    it('refuses two managers with one email, whatever its case', () => {
      expectInvalid(failure(build((draft) => {
        draft.supplied.managers.push({ email: 'AP@Buyer.example' });
      })), 'body.supplied.managers[1].email must differ from body.supplied.managers[0].email.');
    });
  });

  describe('tax type and amounts', () => {
    it('refuses an integer tax among null ones', () => {
      expectInvalid(failure(build((draft) => { draft.items[0]!.tax = null; })),
        'body.items[1].tax must be null like body.items[0].tax: every item of a tax-exempt ' +
        'invoice has a null tax.');
    });

    it('refuses a null tax among integer ones', () => {
      expectInvalid(failure(build((draft) => { draft.items[1]!.tax = null; })),
        /^body\.items\[1\]\.tax must be an integer like body\.items\[0\]\.tax: every item/);
    });

    it('refuses a negative supply cost outside an amendment', () => {
      expectInvalid(failure(build((draft) => {
        draft.items[1]!.supplyCost = -50_000;
        draft.items[1]!.tax = 0;
      })), 'body.items[1].supplyCost must not be negative; only an amendment may carry ' +
        'negative amounts.');
    });

    it('refuses a negative tax outside an amendment', () => {
      expectInvalid(failure(build((draft) => { draft.items[1]!.tax = -5_000; })),
        'body.items[1].tax must not be negative; only an amendment may carry negative amounts.');
    });

    it('refuses a tax above the supply cost on a forward issuance', () => {
      expectInvalid(failure(build((draft) => { draft.items[0]!.tax = 100_001; })),
        'body.items[0].tax must not exceed body.items[0].supplyCost.');
    });

    it('refuses a forward issuance whose supply costs are all 0', () => {
      expectInvalid(failure(build((draft) => {
        for (const item of draft.items) {
          item.supplyCost = 0;
          item.tax = 0;
        }
      })), 'body.items must have a supply cost total above 0.');
    });

    it.each([
      [-1_000, 100], [1_000, -100], [0, 100],
    ])('refuses an amendment item with supply cost %i and tax %i of opposite sign',
      (supplyCost, tax) => {
        expectInvalid(failure(build((draft) => {
          draft.items[1]!.supplyCost = supplyCost;
          draft.items[1]!.tax = tax;
        }), { amounts: 'amendment' }),
        'body.items[1].tax must have the sign of body.items[1].supplyCost, or be 0.');
      });

    it('refuses an amendment item whose tax exceeds its supply cost in absolute value', () => {
      expectInvalid(failure(build((draft) => {
        draft.items[0]!.supplyCost = -1_000;
        draft.items[0]!.tax = -1_001;
      }), { amounts: 'amendment' }),
      'body.items[0].tax must not exceed body.items[0].supplyCost in absolute value.');
    });

    it('refuses an amendment that changes neither total', () => {
      expectInvalid(failure(build((draft) => {
        draft.items[0]!.supplyCost = -1_000;
        draft.items[0]!.tax = -100;
        draft.items[1]!.supplyCost = 1_000;
        draft.items[1]!.tax = 100;
      }), { amounts: 'amendment' }),
      'body.items must change the supply cost or the tax: both totals are 0.');
    });

    it('refuses a supply cost that is not quantity × unit price in whole won', () => {
      expectInvalid(failure(build((draft) => {
        draft.items[0]!.quantity = 3;
        draft.items[0]!.unitPrice = 1;
      })), 'body.items[0].supplyCost must be body.items[0].quantity × ' +
        'body.items[0].unitPrice (3) in whole won, less than 1 won from it; got 100000.');
      expectInvalid(failure(build((draft) => {
        draft.items[0]!.quantity = 2.5;
        draft.items[0]!.unitPrice = 40_001;
        draft.items[0]!.supplyCost = 100_004;
      })), /\(100002\.50\) in whole won, less than 1 won from it; got 100004\.$/);
    });

    it.each([
      ['truncated', 100_002], ['rounded up', 100_003],
    ])('accepts quantity × unit price %s to whole won, with decimals', (_how, supplyCost) => {
      const result = validateInvoice(build((draft) => {
        Object.assign(draft.items[0]!, { quantity: 2.5, unitPrice: 40_001, supplyCost,
          tax: 10_000 });
      }), CONTEXT);
      expect(result.totals.supplyCost).toBe(supplyCost + 50_000);
    });

    it('accepts a negated item of an amendment whose quantity is negative', () => {
      const result = validateInvoice(build((draft) => {
        draft.items = [{ ...draft.items[0]!, quantity: -0.5, unitPrice: 200_001,
          supplyCost: -100_000, tax: -10_000 }];
      }), { ...CONTEXT, amounts: 'amendment' });
      expect(result.totals.tax).toBe(-10_000);
    });

    it.each([
      ['half the supply cost', 50_000, 10_000],
      ['1 won on 100,000', 1, 10_000],
      ['2 won over', 10_002, 10_000],
    ])('refuses a tax of %s on a taxable item, naming the expected tax', (_case, tax, expected) => {
      expectInvalid(failure(build((draft) => { draft.items[0]!.tax = tax; })),
        `body.items[0].tax must be 10% of body.items[0].supplyCost: ${expected}, give or take ` +
        `1 won for rounding; got ${tax}.`);
    });

    it.each([
      ['truncated', 1_234, 123], ['rounded', 1_235, 124], ['rounded up', 1_231, 124],
    ])('accepts a tax %s from 10%% of the supply cost', (_how, supplyCost, tax) => {
      const result = validateInvoice(build((draft) => {
        draft.items = [{ ...draft.items[0]!, quantity: null, unitPrice: null, supplyCost, tax }];
      }), CONTEXT);
      expect(result.taxType).toBe('TAXABLE');
    });

    it('refuses a zero-rated item beside a taxed one, saying they cannot be mixed', () => {
      expectInvalid(failure(build((draft) => { draft.items[1]!.tax = 0; })),
        'body.items[1].tax must be 10% of body.items[1].supplyCost: 5000, give or take 1 won ' +
        'for rounding; got 0. Zero-rated items (tax 0) cannot share a tax invoice with taxed ' +
        'items: issue them on a zero-rated invoice of their own.');
    });

    it('refuses a tax total more than 1 won per item from 10% of the supply cost total', () => {
      // Each item a won over 2: within its own tolerance, but 9 is 4 over 5, 10% of 45.
      const items = (tax: number) => (draft: Invoice) => {
        draft.items = [1, 2, 3].map(() => ({ date: '2026-11-20', name: '부품', supplyCost: 15,
          tax }));
      };
      expectInvalid(failure(build(items(3))), 'body.items: the tax total must be 10% of the ' +
        'supply cost total 45: 5, give or take 3 won (1 per item); got 9.');
      expect(validateInvoice(build(items(1)), CONTEXT).totals.tax).toBe(3);
    });
  });

  describe('text', () => {
    it.each([
      ['body.items[1].name', (draft: Invoice) => { draft.items[1]!.name = '설치비 🔧'; }, 'U+1F527', 4],
      ['body.supplier.manager.name', (draft: Invoice) => { draft.supplier.manager.name = '김😀'; },
        'U+1F600', 1],
      ['body.supplied.managers[0].email', (draft: Invoice) => {
        draft.supplied.managers[0]!.email = 'a😀@buyer.example';
      }, 'U+1F600', 1],
      ['body.description', (draft: Invoice) => { draft.description = '𠀀'; }, 'U+20000', 0],
      ['body.supplied.address', (draft: Invoice) => { draft.supplied.address = '서울\ud83d'; },
        'U+D83D', 2],
    ])('refuses a character outside the BMP in %s', (path, edit, codePoint, index) => {
      expectInvalid(failure(build(edit)), `${path} contains ${codePoint} at position ${index}, ` +
        'a character outside the Basic Multilingual Plane (such as an emoji); such characters ' +
        'cannot be put on a tax invoice.');
    });

    it.each([
      ['body.items[0].name', (draft: Invoice) => { draft.items[0]!.name = '부품\uFFFE'; },
        'U+FFFE', 2],
      ['body.supplied.organizationName', (draft: Invoice) => {
        draft.supplied.organizationName = '\uFFFF받는곳';
      }, 'U+FFFF', 0],
    ])('refuses a noncharacter XML cannot carry in %s', (path, edit, codePoint, index) => {
      expectInvalid(failure(build(edit)), `${path} contains ${codePoint} at position ${index}, ` +
        'a noncharacter that the tax invoice\'s XML cannot carry.');
    });

    it('takes every other character of the BMP but the control characters', () => {
      const allowed = Array.from({ length: 0xfffe - 0x80 }, (_, index) => 0x80 + index)
        .filter((code) => code < 0xd800 || code > 0xdfff).map((code) => String.fromCharCode(code))
        .join('');
      expect(() => validateInvoice(build((draft) => { draft.description = `비고 ${allowed}`; }),
        CONTEXT)).not.toThrow();
    });

    it.each([
      ['body.supplier.representativeName', (draft: Invoice) => {
        draft.supplier.representativeName = '   ';
      }],
      ['body.supplied.managers[0].telephone', (draft: Invoice) => {
        draft.supplied.managers[0]!.telephone = '  ';
      }],
      ['body.items[0].specification', (draft: Invoice) => {
        draft.items[0]!.specification = '\u3000';
      }],
    ])('refuses a blank %s', (path, edit) => {
      expectInvalid(failure(build(edit)), `${path} must not be blank.`);
    });
  });

  describe('which error wins', () => {
    it('reports text before dates, dates before parties and parties before amounts', () => {
      const invoice = build((draft) => {
        draft.items[0]!.tax = -1;
        draft.supplied.identificationNumber = '2208162518';
        draft.date = '2026-11-23';
        draft.description = '😀';
      });
      expect(failure(invoice).message).toMatch(/^body\.description contains/);
      invoice.description = null;
      expect(failure(invoice).message).toMatch(/^body\.date must not be after today/);
      invoice.date = '2026-11-20';
      expect(failure(invoice).code).toBe('INVALID_BUSINESS_REGISTRATION_NUMBER');
      invoice.supplied.identificationNumber = RECIPIENT_NUMBER;
      expect(failure(invoice).message).toMatch(/^body\.items\[0\]\.tax must not be negative/);
    });
  });
});

describe('computeTotals', () => {
  it('adds supply costs and taxes, counting a null tax as 0', () => {
    const items = build((draft) => { draft.items[1]!.tax = null; }).items;
    expect(computeTotals(items)).toEqual({ supplyCost: 150_000, tax: 10_000, total: 160_000 });
  });

  it('stays exact at the largest amounts the schema allows', () => {
    const item = { date: '2026-11-20', name: 'x', supplyCost: AMOUNT_ABS_MAX, tax: AMOUNT_ABS_MAX };
    const totals = computeTotals(Array.from({ length: ITEMS_MAX }, () => item));
    expect(totals.total).toBe(2 * ITEMS_MAX * AMOUNT_ABS_MAX);
    expect(Number.isSafeInteger(totals.total)).toBe(true);
  });

  it('refuses an amount that is not a safe integer, a programming error', () => {
    const item = { date: '2026-11-20', name: 'x', supplyCost: 0.5, tax: 0 };
    expect(() => computeTotals([item])).toThrow();
  });
});

describe('the payment breakdown', () => {
  const TOTAL = 165_000;

  it('lets parts through that add up to the total or less, absent parts null', () => {
    const exact = validateInvoice(build((invoice) => {
      invoice.payment = { cash: 100_000, credit: TOTAL - 100_000 };
    }), CONTEXT);
    expect(exact.invoice.payment).toEqual({ cash: 100_000, check: null, note: null,
      credit: 65_000 });
    expect(validateInvoice(build((invoice) => {
      invoice.payment = { note: 1 };
    }), CONTEXT).invoice.payment).toEqual({ cash: null, check: null, note: 1, credit: null });
    expect(validateInvoice(BASE, CONTEXT).invoice).not.toHaveProperty('payment');
    expect(validateInvoice(build((invoice) => {
      invoice.payment = null;
    }), CONTEXT).invoice).not.toHaveProperty('payment');
  });

  it('refuses parts that add up to more than the total, naming both sums', () => {
    const error = failure(build((invoice) => {
      invoice.payment = { cash: TOTAL, check: 1 };
    }));
    expect(error.code).toBe('INVALID_REQUEST');
    expect(error.message).toMatch(/^body\.payment adds up to 165001 won .* 165000 won/);
  });

  it('measures an amendment that lowers the amounts against the size of its total', () => {
    const lowered = build((invoice) => {
      invoice.items = [{ date: '2026-11-20', name: '환입', supplyCost: -100_000, tax: -10_000 }];
      invoice.payment = { cash: 110_000 };
    });
    expect(validateInvoice(lowered, { ...CONTEXT, amounts: 'amendment' }).invoice.payment)
      .toMatchObject({ cash: 110_000 });
    lowered.payment = { cash: 110_001 };
    expect(failure(lowered, { amounts: 'amendment' }).message).toMatch(/110001 won/);
    // Copied from the original with a part of its items: not checked, as those items are not.
    expect(() => validateInvoice(lowered, { ...CONTEXT, amounts: 'amendment',
      amountsFrom: 'original' })).not.toThrow();
  });
});

describe('a trustee document (위수탁)', () => {
  // The issuer named by Supplier-Key (SUPPLIER_NUMBER) is the trustee; it issues for the
  // supplier 123-45-67891 to the recipient.
  const CONSIGNOR = '1234567891';
  const trustee = (edit: (invoice: Invoice) => void = () => {}) => build((invoice) => {
    invoice.supplier.identificationNumber = CONSIGNOR;
    invoice.broker = { identificationNumber: SUPPLIER_NUMBER, organizationName: '수탁판매',
      representativeName: '최수탁' };
    edit(invoice);
  });

  it('passes with the trustee as the issuer and the supplier another business, normalised', () => {
    const result = validateInvoice(trustee(), CONTEXT);
    expect(result.invoice.supplier.identificationNumber).toBe(CONSIGNOR);
    expect(result.invoice.broker).toEqual({ identificationNumber: SUPPLIER_NUMBER,
      taxRegistrationId: null, organizationName: '수탁판매', representativeName: '최수탁',
      address: null, businessType: null, businessItem: null, manager: null });
    expect(result.counterpartNumber).toBe(RECIPIENT_NUMBER);
    // Without a broker the document has none at all, as before.
    expect(validateInvoice(build(), CONTEXT).invoice).not.toHaveProperty('broker');
    expect(validateInvoice(build((invoice) => { invoice.broker = null; }), CONTEXT).invoice)
      .not.toHaveProperty('broker');
  });

  it('refuses a trustee that is not the issuer named by Supplier-Key', () => {
    expectInvalid(failure(trustee((invoice) => {
      invoice.broker!.identificationNumber = RECIPIENT_NUMBER;
    })), new RegExp('^body\\.broker\\.identificationNumber must be the number of the issuer ' +
      'named by Supplier-Key: the trustee'));
    expectInvalid(failure(trustee((invoice) => {
      invoice.broker!.taxRegistrationId = '0001';
    })), /^body\.broker\.taxRegistrationId must be null/);
  });

  it('refuses a supplier with a bad number, the trustee itself, or the trustee as buyer', () => {
    const bad = failure(trustee((invoice) => {
      invoice.supplier.identificationNumber = '1234567890';
    }));
    expect(bad.code).toBe('INVALID_BUSINESS_REGISTRATION_NUMBER');
    expect(bad.message).toMatch(/^body\.supplier\.identificationNumber /);
    expectInvalid(failure(trustee((invoice) => {
      invoice.supplier.identificationNumber = SUPPLIER_NUMBER;
    })), /^body\.supplier\.identificationNumber must differ from body\.broker/);
    expectInvalid(failure(trustee((invoice) => {
      invoice.supplied.identificationNumber = SUPPLIER_NUMBER;
    })), /^body\.supplied must be a business other than body\.broker/);
    // The same number at another sub-place is another business.
    expect(validateInvoice(trustee((invoice) => {
      invoice.supplied.identificationNumber = SUPPLIER_NUMBER;
      invoice.supplied.taxRegistrationId = '0002';
    }), CONTEXT).invoice.supplied.taxRegistrationId).toBe('0002');
  });

  it('refuses a trustee on a reverse issuance request, and hostile text in its fields', () => {
    expectInvalid(failure(trustee(), { broker: 'refused' }),
      /^body\.broker must be null: a reverse issuance request/);
    expectInvalid(failure(trustee((invoice) => {
      invoice.broker!.organizationName = '수탁 😀';
    })), /^body\.broker\.organizationName contains U\+1F600/);
    expectInvalid(failure(trustee((invoice) => {
      invoice.broker!.representativeName = '   ';
    })), 'body.broker.representativeName must not be blank.');
  });
});
