// mergePatchBetween, the merge patch the dashboard's draft forms send (src/platform/
// partial-schema.ts): applied with mergePatch to what it was computed from, it gives the new
// document; what did not change is left out; fields removed are null; arrays are given whole.
import { describe, expect, it } from 'vitest';
import { mergePatch, mergePatchBetween } from '../../src/platform/partial-schema.ts';

const before = {
  date: '2026-11-27', purpose: 'CLAIM', description: '<b>remark</b>',
  supplied: { organizationName: '주식회사 받는곳', managers: [{ email: 'a@example.com' }],
    address: '부산' },
  items: [{ name: '하나', supplyCost: 100 }, { name: '둘', supplyCost: 200 }],
};

describe('mergePatchBetween', () => {
  it('gives exactly the changes, and mergePatch turns before into after with them', () => {
    const after = {
      date: '2026-11-27', purpose: 'RECEIPT',
      supplied: { managers: [{ email: 'a@example.com' }], address: '부산',
        organizationName: '바뀐 곳', businessType: '도소매' },
      items: [{ name: '하나', supplyCost: 100 }],
    };
    const patch = mergePatchBetween(before, after);
    expect(patch).toEqual({ purpose: 'RECEIPT', description: null,
      supplied: { organizationName: '바뀐 곳', businessType: '도소매' },
      items: [{ name: '하나', supplyCost: 100 }] });
    expect(mergePatch(before, patch)).toEqual(after);
  });

  it('is empty for an equal document, whatever the order of its keys', () => {
    const reordered = { items: before.items, supplied: { address: '부산',
      managers: [{ email: 'a@example.com' }], organizationName: '주식회사 받는곳' },
    description: '<b>remark</b>', purpose: 'CLAIM', date: '2026-11-27' };
    expect(mergePatchBetween(before, reordered)).toEqual({});
  });

  it('replaces a value that is not an object on either side', () => {
    expect(mergePatchBetween({ a: { b: 1 } }, { a: [1] })).toEqual({ a: [1] });
    expect(mergePatchBetween({ a: 1 }, { a: { b: 1 } })).toEqual({ a: { b: 1 } });
    expect(mergePatchBetween([1], { a: 1 })).toEqual({ a: 1 });
  });
});
