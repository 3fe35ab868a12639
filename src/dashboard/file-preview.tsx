import type { ComponentChildren } from 'preact';

// The preview of an uploaded spreadsheet (counterparty imports, tax-invoice uploads): every row
// with its check beside its number, each bad cell marked and described, before anything is
// kept. One table for both, so a row's problems read the same wherever a file is checked.

export type PreviewColumn = { key: string; label: string };

export type PreviewRow = {
  row: number;
  // The column a problem is about (null: the row as a whole), and what is wrong, in English
  // as the API answers it.
  errors: ReadonlyArray<{ column: string | null; message: string }>;
  cells: Readonly<Record<string, string | undefined>>;
  // What a row without problems shows as its check.
  ok: ComponentChildren;
};

export function FilePreviewTable(props: { caption: string; rowLabel: string;
  resultLabel: string; columns: readonly PreviewColumn[]; rows: readonly PreviewRow[] }) {
  const labels = new Map(props.columns.map((column) => [column.key, column.label]));
  return (
    <div class="table-wrap" tabIndex={0} role="region" aria-label={props.caption}>
      <table class="preview">
        <caption class="visually-hidden">{props.caption}</caption>
        <thead><tr>
          <th scope="col">{props.rowLabel}</th>
          <th scope="col">{props.resultLabel}</th>
          {props.columns.map((column) => <th scope="col" key={column.key}>{column.label}</th>)}
        </tr></thead>
        <tbody>
          {props.rows.map((row) => {
            const bad = new Set(row.errors.map((error) => error.column));
            return (
              <tr key={row.row} class={row.errors.length > 0 ? 'invalid' : undefined}
                data-row={row.row}>
                <th scope="row">{row.row}</th>
                <td class="result break">
                  {row.errors.length === 0 ? <span class="state ok">{row.ok}</span>
                    : <ul class="errors">{row.errors.map((error, index) => (
                      <li key={index}>{error.column === null ? ''
                        : `${labels.get(error.column) ?? error.column}: `}
                        <span lang="en">{error.message}</span></li>))}</ul>}
                </td>
                {props.columns.map(({ key }) => (
                  <td key={key} data-column={key}
                    class={bad.has(key) ? 'bad-cell break' : 'break'}>{row.cells[key] ?? ''}</td>
                ))}
              </tr>
            );
          })}
        </tbody>
      </table>
    </div>
  );
}
