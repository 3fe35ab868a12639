// Excel workbooks of what a records page shows, written by exceljs (an xlsx writer, not a
// hand-made format). Text cells are stored as text: a value that starts with `=` stays text in
// xlsx, so nothing a counterpart named runs as a formula. Amounts are numbers with the won format.

export type Sheet = { name: string; columns: ReadonlyArray<{ header: string; key: string;
  width?: number; won?: boolean }>; rows: ReadonlyArray<Record<string, unknown>> };

export const XLSX_TYPE = 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet';

export async function workbook(sheets: readonly Sheet[]): Promise<Buffer> {
  // exceljs is loaded with the first export, not with the dashboard.
  const { default: ExcelJS } = await import('exceljs');
  const book = new ExcelJS.Workbook();
  book.creator = 'etax';
  for (const sheet of sheets) {
    const worksheet = book.addWorksheet(sheet.name);
    worksheet.columns = sheet.columns.map((column) => ({ header: column.header, key: column.key,
      width: column.width ?? 16, ...(column.won ? { style: { numFmt: '#,##0' } } : {}) }));
    worksheet.getRow(1).font = { bold: true };
    worksheet.views = [{ state: 'frozen', ySplit: 1 }];
    for (const row of sheet.rows) worksheet.addRow(row);
  }
  return Buffer.from(await book.xlsx.writeBuffer());
}
