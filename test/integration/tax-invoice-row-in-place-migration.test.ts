// Upgrading a database with tax invoices to the release whose document rows are rewritten in
// place: a failed document without a failure code gets the general one (the index of failures
// depends on it), a document already signed as XML gets its signing certificate beside its XML,
// and a document signed before the XML keeps its certificate on its row. Method: the committed
// migrations up to the one before, documents written as that release wrote them, then every
// migration.
import { describe, expect, it } from 'vitest';
import { usingPostgres } from '../helpers/database.ts';
import { MIGRATIONS_DIR, useDatabaseToUpgrade } from '../helpers/migrations.ts';

const upgraded = useDatabaseToUpgrade('0044_tax_invoice_status_in_place');

const CERTIFICATE = Buffer.from('a certificate, as base64').toString('base64');

async function insertAsBefore(issuanceKey: string, status: string,
  failure: { code: string; message: string } | null, signingCertificate: string | null) {
  await upgraded.pool.query(`insert into tax_invoices (issuance_key, account_id, environment,
      api_key_id, issuer_id, supplier_key, issuance_type, status, invoice, write_date,
      issue_deadline, late_issuance, counterpart_number, tax_type, supply_cost_total, tax_total,
      total_amount, charged_points, failure_code, failure_message, signing_certificate)
    values ($1, 'acct_migration', 'test', 'key_migration', 'iss_migration', 'sup_migration',
      'STANDARD', $2, '{}'::jsonb, '2026-11-27', '2026-12-10', false, '1234567891', 'TAXABLE',
      200000, 20000, 220000, 100, $3, $4, $5)`,
  [issuanceKey, status, failure?.code ?? null, failure?.message ?? null, signingCertificate]);
}

describe.skipIf(!usingPostgres)('the migration of tax invoices\' rows (PostgreSQL)', () => {
  it('gives failures their code and signed documents their certificate beside their XML',
    async () => {
      await upgraded.migrate(upgraded.earlierDir);
      await insertAsBefore('ti_failed_without_code', 'FAILED', null, null);
      await insertAsBefore('ti_failed_with_code', 'FAILED',
        { code: 'NTS_REJECTED', message: 'Rejected.' }, null);
      await insertAsBefore('ti_refused', 'REFUSED',
        { code: 'ISSUE_REQUEST_REFUSED', message: 'No.' }, null);
      await insertAsBefore('ti_signed_as_xml', 'ISSUED', null, CERTIFICATE);
      await insertAsBefore('ti_signed_before_xml', 'TRANSMITTED', null, CERTIFICATE);
      await upgraded.pool.query(`insert into tax_invoice_xml_documents (issuance_key,
          approval_number, signed_xml) values ('ti_signed_as_xml', '202611274100000800000001',
          '<TaxInvoice/>')`);
      await upgraded.migrate(MIGRATIONS_DIR);

      const { rows: failures } = await upgraded.pool.query<{ issuance_key: string;
        failure_code: string; failure_message: string }>(`select issuance_key, failure_code,
        failure_message from tax_invoices where failure_code is not null order by issuance_key`);
      expect(failures).toEqual([
        { issuance_key: 'ti_failed_with_code', failure_code: 'NTS_REJECTED',
          failure_message: 'Rejected.' },
        { issuance_key: 'ti_failed_without_code', failure_code: 'ISSUANCE_FAILED',
          failure_message: 'The tax invoice could not be issued.' },
        { issuance_key: 'ti_refused', failure_code: 'ISSUE_REQUEST_REFUSED',
          failure_message: 'No.' },
      ]);
      const { rows: [xml] } = await upgraded.pool.query(`select signing_certificate
        from tax_invoice_xml_documents where issuance_key = 'ti_signed_as_xml'`);
      expect(xml).toEqual({ signing_certificate: CERTIFICATE });
      const { rows: [before] } = await upgraded.pool.query(`select signing_certificate
        from tax_invoices where issuance_key = 'ti_signed_before_xml'`);
      expect(before).toEqual({ signing_certificate: CERTIFICATE });
      // The XML is kept as it is, without compression; the documents' pages keep room.
      const { rows: [storage] } = await upgraded.pool.query(`select a.attstorage as storage
        from pg_attribute a where a.attrelid = 'tax_invoice_xml_documents'::regclass
         and a.attname = 'signed_xml'`);
      expect(storage).toEqual({ storage: 'e' });
      const { rows: [options] } = await upgraded.pool.query(`select reloptions as options
        from pg_class where oid = 'tax_invoices'::regclass`);
      expect(options).toEqual({ options: ['fillfactor=50'] });
    }, 60_000);
});
