import { render } from 'preact';
import { useEffect, useState } from 'preact/hooks';
import {
  lineTax, sumAmounts, supplyCostOfQuantity, type TaxKind,
} from '../../domain/tax-amounts.ts';

// The line editor of the tax-invoice forms, an island over the server's own table: the inputs
// stay the form's (it posts without this script), and this fills each line's supply cost from
// quantity × unit price and its tax from the supply cost, and keeps the totals, with the
// domain's own arithmetic (src/domain/tax-amounts.ts), the one the API checks with. A value
// the person typed is never overwritten. It also adds lines, up to the table's maximum.

const KINDS: readonly TaxKind[] = ['TAXABLE', 'ZERO_RATED', 'TAX_FREE'];
const grouped = new Intl.NumberFormat('ko-KR', { maximumFractionDigits: 0 });
const won = (value: number) => `${grouped.format(value)}원`;

const parse = (value: string): number | null => {
  const plain = value.replaceAll(',', '').trim();
  return /^-?\d+(\.\d+)?$/.test(plain) ? Number(plain) : null;
};

function kindOf(island: HTMLElement): TaxKind {
  const select = island.closest('form')?.querySelector<HTMLSelectElement>('[data-tax-kind]');
  const value = select?.value ?? island.dataset.kind;
  return KINDS.find((kind) => kind === value) ?? 'TAXABLE';
}

const input = (row: Element, field: string) =>
  row.querySelector<HTMLInputElement>(`input[data-field="${field}"]`);

// Fills what the person left to the editor, then returns the line's amounts.
function computeLine(row: Element, kind: TaxKind) {
  const quantity = parse(input(row, 'quantity')?.value ?? '');
  const unitPrice = parse(input(row, 'unitPrice')?.value ?? '');
  const supplyInput = input(row, 'supplyCost');
  const taxInput = input(row, 'tax');
  if (supplyInput && supplyInput.dataset.typed !== 'true' && quantity !== null &&
    unitPrice !== null && Number.isInteger(unitPrice)) {
    supplyInput.value = String(supplyCostOfQuantity(quantity, unitPrice));
  }
  const supplyCost = parse(supplyInput?.value ?? '');
  if (supplyCost === null || !Number.isInteger(supplyCost)) return null;
  const tax = lineTax(kind, supplyCost);
  if (taxInput && taxInput.dataset.typed !== 'true') {
    taxInput.value = tax === null ? '' : String(tax);
  }
  const typedTax = parse(taxInput?.value ?? '');
  return { supplyCost, tax: kind === 'TAX_FREE' ? null : typedTax ?? tax };
}

function totalsOf(island: HTMLElement) {
  const kind = kindOf(island);
  const lines = [...island.querySelectorAll('tr[data-line]')]
    .map((row) => computeLine(row, kind)).filter((line) => line !== null);
  return sumAmounts(lines);
}

// A new line: the last one's inputs, emptied, renumbered.
function addLine(island: HTMLElement) {
  const rows = island.querySelectorAll('tr[data-line]');
  const last = rows[rows.length - 1];
  if (!last || rows.length >= Number(island.dataset.max ?? '99')) return;
  const copy = last.cloneNode(true) as HTMLTableRowElement;
  for (const field of copy.querySelectorAll<HTMLInputElement>('input')) {
    field.name = field.name.replace(/^items\.(\d+)\./, `items.${rows.length}.`);
    field.value = '';
    delete field.dataset.typed;
    field.setAttribute('aria-label', (field.getAttribute('aria-label') ?? '')
      .replace(/\d+/, String(rows.length + 1)));
  }
  last.after(copy);
}

function Totals(props: { island: HTMLElement; labels: DOMStringMap }) {
  const [totals, setTotals] = useState(() => totalsOf(props.island));
  useEffect(() => {
    const update = (event: Event) => {
      const target = event.target;
      if (event.type === 'input' && target instanceof HTMLInputElement && target.dataset.field &&
        ['supplyCost', 'tax'].includes(target.dataset.field)) {
        target.dataset.typed = target.value.trim() === '' ? 'false' : 'true';
      }
      setTotals(totalsOf(props.island));
    };
    const form = props.island.closest('form') ?? props.island;
    form.addEventListener('input', update);
    form.addEventListener('change', update);
    return () => {
      form.removeEventListener('input', update);
      form.removeEventListener('change', update);
    };
  }, [props.island]);
  return (
    <>
      <button type="button" class="secondary" onClick={() => {
        addLine(props.island);
        setTotals(totalsOf(props.island));
      }}>{props.labels.addLabel}</button>
      <span>
        {props.labels.labelSupply} <output>{won(totals.supplyCost)}</output>
        {' · '}{props.labels.labelTax} <output>{won(totals.tax)}</output>
        {' · '}{props.labels.labelTotal} <output>{won(totals.total)}</output>
      </span>
    </>
  );
}

export function setUpLineEditors(root: ParentNode) {
  for (const island of root.querySelectorAll<HTMLElement>('[data-island="line-editor"]')) {
    if (island.dataset.ready === 'true') continue;
    island.dataset.ready = 'true';
    const bar = island.querySelector<HTMLElement>('[data-totals]');
    if (bar === null) continue;
    const labels = { ...bar.dataset };
    bar.textContent = '';
    render(<Totals island={island} labels={labels} />, bar);
  }
}
