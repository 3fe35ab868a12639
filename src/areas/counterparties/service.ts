import {
  businessRegistrationNumberDefect,
  normalizeBusinessRegistrationNumber,
} from '../../domain/business-registration-number.ts';
import { newId } from '../../domain/ids.ts';
import { sequenceCursors, type PageCursors } from '../../platform/cursor.ts';
import type { Db } from '../../platform/db/connect.ts';
import { ApiError } from '../../platform/errors.ts';
import type { Scope } from '../../platform/scope.ts';
import { TableFileError } from '../../platform/table-files.ts';
import type { RegistrationStatusService } from '../businesses/index.ts';
import type { RecipientOf } from '../tax-invoices/index.ts';
import { IMPORT_COLUMNS, readImportFile, type CheckedRow } from './import.ts';
import type { CounterpartyChanges, CounterpartyInput, CounterpartyView } from './schemas.ts';
import * as store from './store.ts';
import type { CounterpartyManager } from './tables.ts';

// The counterparty book (docs/counterparties.md): the businesses an account issues to, kept per
// account and environment (another scope's id is 404), free to keep. Their registration status
// is checked through the registration status service, the same one the lookups use, and so is
// charged as a lookup (10 points a number), whether a person asks or the schedule does. A
// counterparty found CLOSED is flagged; an issuance that names it is refused (409
// COUNTERPARTY_CLOSED), because an invoice to a closed business goes to no one who can take it
// into a VAT return.

type CounterpartiesDeps = {
  db: Db;
  cursors: PageCursors;
  registrationStatus: Pick<RegistrationStatusService, 'inquireStatuses'>;
  now: () => Date;
};

const NOT_FOUND = 'No counterparty has this id.';

// The ten digits of a number with a matching checksum, or what is wrong with it.
function numberOf(input: string): { digits: string } | { defect: string } {
  const digits = normalizeBusinessRegistrationNumber(input);
  if (digits === null) return { defect: 'must have ten digits once hyphens are removed' };
  const defect = businessRegistrationNumberDefect(digits);
  return defect === null ? { digits } : { defect };
}

function requireNumber(input: string, field: string): string {
  const number = numberOf(input);
  if ('defect' in number) {
    throw new ApiError('INVALID_BUSINESS_REGISTRATION_NUMBER', `${field} ${number.defect}.`);
  }
  return number.digits;
}

// The book's key of a counterparty: its number and sub-place number.
const keyOf = (number: string, taxRegistrationId: string | null | undefined) =>
  `${number}/${taxRegistrationId ?? ''}`;

const managersOf = (managers: CounterpartyInput['managers']): CounterpartyManager[] =>
  (managers ?? []).map((manager) => ({ email: manager.email, name: manager.name ?? null,
    telephone: manager.telephone ?? null }));

function rowOf(scope: Scope, input: CounterpartyInput, number: string, importId: string | null,
  now: Date): store.NewCounterpartyRow {
  return {
    id: newId('counterparty'), accountId: scope.accountId, environment: scope.environment,
    businessRegistrationNumber: number, taxRegistrationId: input.taxRegistrationId ?? '',
    organizationName: input.organizationName, representativeName: input.representativeName,
    address: input.address ?? null, businessType: input.businessType ?? null,
    businessItem: input.businessItem ?? null, managers: managersOf(input.managers),
    memo: input.memo ?? null, autoRefreshStatus: input.autoRefreshStatus ?? false, importId,
    createdAt: now, updatedAt: now,
  };
}

// The columns a change sets besides the number: null clears an optional field.
function columnChanges(changes: CounterpartyChanges): Partial<store.NewCounterpartyRow> {
  const row: Partial<store.NewCounterpartyRow> = {};
  if (changes.taxRegistrationId !== undefined) {
    row.taxRegistrationId = changes.taxRegistrationId ?? '';
  }
  for (const key of ['organizationName', 'representativeName'] as const) {
    if (changes[key] !== undefined) row[key] = changes[key];
  }
  for (const key of ['address', 'businessType', 'businessItem', 'memo'] as const) {
    if (changes[key] !== undefined) row[key] = changes[key] ?? null;
  }
  if (changes.managers !== undefined) row.managers = managersOf(changes.managers);
  if (changes.autoRefreshStatus !== undefined) row.autoRefreshStatus = changes.autoRefreshStatus;
  return row;
}

function toCounterparty(row: store.CounterpartyRow): CounterpartyView {
  return {
    id: row.id,
    businessRegistrationNumber: row.businessRegistrationNumber,
    taxRegistrationId: row.taxRegistrationId === '' ? null : row.taxRegistrationId,
    organizationName: row.organizationName,
    representativeName: row.representativeName,
    address: row.address,
    businessType: row.businessType,
    businessItem: row.businessItem,
    managers: row.managers,
    memo: row.memo,
    autoRefreshStatus: row.autoRefreshStatus,
    registration: {
      status: row.registrationStatus as CounterpartyView['registration']['status'],
      closedOn: row.closedOn,
      taxType: row.taxType,
      checkedAt: row.statusCheckedAt?.toISOString() ?? null,
      closed: row.registrationStatus === 'CLOSED',
    },
    createdAt: row.createdAt.toISOString(),
    updatedAt: row.updatedAt.toISOString(),
  };
}

function toImport(row: store.ImportRowOfTable) {
  const invalidRows = row.rows.filter((item) => item.errors.length > 0).length;
  return {
    id: row.id,
    status: row.status as 'PREVIEWED' | 'COMMITTED',
    fileName: row.fileName,
    columns: IMPORT_COLUMNS.map((column) => column.key as string),
    rows: row.rows.map(({ row: number, values, errors }) => ({ row: number, values, errors })),
    validRows: row.validRows,
    invalidRows,
    createdCount: row.createdCount,
    createdAt: row.createdAt.toISOString(),
    committedAt: row.committedAt?.toISOString() ?? null,
  };
}
export type CounterpartyImportView = ReturnType<typeof toImport>;

// The rows an import keeps: each row's values and errors, and the valid rows' inputs to add.
type KeptRow = CheckedRow;

// Status checks, and the recipient an issuance takes from a counterparty.
function createStatusChecks(deps: CounterpartiesDeps,
  requireCounterparty: (scope: Scope, id: string) => Promise<store.CounterpartyRow>) {
  const { db } = deps;
  // Checks the registration status of these numbers of the scope's book and records it on
  // every counterparty with one of them. Charged by the registration status service.
  async function checkStatuses(scope: Scope, numbers: string[]) {
    const { results } = await deps.registrationStatus.inquireStatuses({ caller: scope,
      businessRegistrationNumbers: numbers });
    await db.transaction(async (tx) => {
      for (const result of results) {
        await store.recordStatus(tx, scope, { businessRegistrationNumber:
          result.businessRegistrationNumber, status: result.status,
          closedOn: result.closedOn, taxType: result.taxType,
          checkedAt: new Date(result.checkedAt) });
      }
    });
  }

  async function refreshStatus(input: { scope: Scope; counterpartyId: string }) {
    const row = await requireCounterparty(input.scope, input.counterpartyId);
    await checkStatuses(input.scope, [row.businessRegistrationNumber]);
    return toCounterparty(await requireCounterparty(input.scope, input.counterpartyId));
  }

  // The recipient fields of a counterparty, for an issuance that names it.
  const recipientOf: RecipientOf = async (scope, counterpartyId) => {
    const row = await store.findCounterparty(db, scope, counterpartyId);
    if (row === null) {
      throw new ApiError('NOT_FOUND', 'body.supplied.counterpartyId names no counterparty of ' +
        'this account and environment.');
    }
    if (row.registrationStatus === 'CLOSED') {
      throw new ApiError('COUNTERPARTY_CLOSED', `The counterparty ${row.id} was found closed ` +
        `(폐업${row.closedOn === null ? '' : ` ${row.closedOn}`}) when its registration status ` +
        `was checked at ${row.statusCheckedAt?.toISOString() ?? 'an earlier time'}. Check it ` +
        'again, or name the recipient by its fields.');
    }
    return {
      identificationNumber: row.businessRegistrationNumber,
      taxRegistrationId: row.taxRegistrationId === '' ? null : row.taxRegistrationId,
      organizationName: row.organizationName, representativeName: row.representativeName,
      address: row.address, businessType: row.businessType, businessItem: row.businessItem,
      managers: row.managers as Awaited<ReturnType<RecipientOf>>['managers'],
    };
  };

  return { checkStatuses, refreshStatus, recipientOf };
}

// Imports: a file's rows previewed and kept, then committed once.
function createImports(deps: CounterpartiesDeps) {
  const { db } = deps;
  // Reads an uploaded file and keeps its rows for the preview; nothing is added yet.
  async function previewImport(input: { scope: Scope; file: Buffer; fileName: string | null }) {
    let rows: KeptRow[];
    try {
      ({ rows } = await readImportFile(input.file, {
        numberDefect: (text) => {
          const number = numberOf(text);
          return 'defect' in number ? number.defect : null;
        },
        keyOf: (counterparty) => keyOf(normalizeBusinessRegistrationNumber(
          counterparty.businessRegistrationNumber)!, counterparty.taxRegistrationId),
      }, async (inputs) => {
        const numbers = inputs.map((counterparty) =>
          normalizeBusinessRegistrationNumber(counterparty.businessRegistrationNumber)!);
        return store.existingNumbers(db, input.scope, [...new Set(numbers)]);
      }));
    } catch (error) {
      if (error instanceof TableFileError) throw new ApiError('INVALID_FILE', error.message);
      throw error;
    }
    const kept = rows.map(({ row, values, errors, input: value }) => ({ row, values, errors,
      ...(value === null ? {} : { input: value }) }));
    const saved = await store.insertImport(db, { id: newId('counterpartyImport'),
      accountId: input.scope.accountId, environment: input.scope.environment,
      fileName: input.fileName?.replaceAll('\u0000', '').slice(0, 200) || null, rows: kept,
      validRows: rows.filter((row) => row.input !== null).length, createdAt: deps.now() });
    return toImport(saved);
  }

  async function getImport(input: { scope: Scope; importId: string }) {
    const row = await store.findImport(db, input.scope, input.importId);
    if (row === null) throw new ApiError('NOT_FOUND', 'No counterparty import has this id.');
    return toImport(row);
  }

  // Adds the import's valid rows, once: a commit repeated (a retry, a second click) answers
  // what the first did. A row whose number was added to the book since the preview is skipped.
  async function commitImport(input: { scope: Scope; importId: string }) {
    return db.transaction(async (tx) => {
      const row = await store.findImport(tx, input.scope, input.importId, { forUpdate: true });
      if (row === null) throw new ApiError('NOT_FOUND', 'No counterparty import has this id.');
      if (row.status === 'COMMITTED') return toImport(row);
      const now = deps.now();
      const valid = (row.rows as Array<KeptRow & { input?: CounterpartyInput }>)
        .filter((item) => item.errors.length === 0 && item.input !== undefined);
      if (valid.length === 0) {
        throw new ApiError('COUNTERPARTY_IMPORT_EMPTY', 'Every row of the import has an ' +
          'error; fix the file and upload it again.');
      }
      const created = await store.insertNewCounterparties(tx, valid.map((item) =>
        rowOf(input.scope, item.input!, normalizeBusinessRegistrationNumber(
          item.input!.businessRegistrationNumber)!, row.id, now)));
      return toImport(await store.markImportCommitted(tx, row.id, created, now));
    });
  }

  return { previewImport, getImport, commitImport };
}

export function createCounterpartiesService(deps: CounterpartiesDeps) {
  const { db } = deps;
  const cursors = sequenceCursors(deps.cursors, 'counterparties.list');

  async function requireCounterparty(scope: Scope, id: string) {
    const row = await store.findCounterparty(db, scope, id);
    if (row === null) throw new ApiError('NOT_FOUND', NOT_FOUND);
    return row;
  }

  async function create(input: { scope: Scope; counterparty: CounterpartyInput }) {
    const number = requireNumber(input.counterparty.businessRegistrationNumber,
      'body.businessRegistrationNumber');
    try {
      return toCounterparty(await store.insertCounterparty(db,
        rowOf(input.scope, input.counterparty, number, null, deps.now())));
    } catch (error) {
      if (!store.isDuplicateNumber(error)) throw error;
      throw new ApiError('COUNTERPARTY_ALREADY_EXISTS', 'The book already has a counterparty ' +
        'with this business registration number and sub-place number.');
    }
  }

  async function update(input: { scope: Scope; counterpartyId: string;
    changes: CounterpartyChanges }) {
    const { changes } = input;
    const row: Partial<store.NewCounterpartyRow> = { updatedAt: deps.now() };
    if (changes.businessRegistrationNumber !== undefined) {
      row.businessRegistrationNumber = requireNumber(changes.businessRegistrationNumber,
        'body.businessRegistrationNumber');
      const current = await requireCounterparty(input.scope, input.counterpartyId);
      if (current.businessRegistrationNumber !== row.businessRegistrationNumber) {
        Object.assign(row, { registrationStatus: null, closedOn: null, taxType: null,
          statusCheckedAt: null });
      }
    }
    Object.assign(row, columnChanges(changes));
    try {
      const updated = await store.updateCounterparty(db, input.scope, input.counterpartyId, row);
      if (updated === null) throw new ApiError('NOT_FOUND', NOT_FOUND);
      return toCounterparty(updated);
    } catch (error) {
      if (!store.isDuplicateNumber(error)) throw error;
      throw new ApiError('COUNTERPARTY_ALREADY_EXISTS', 'The book already has another ' +
        'counterparty with this business registration number and sub-place number.');
    }
  }

  async function remove(input: { scope: Scope; counterpartyId: string }) {
    if (!await store.deleteCounterparty(db, input.scope, input.counterpartyId)) {
      throw new ApiError('NOT_FOUND', NOT_FOUND);
    }
  }

  async function get(input: { scope: Scope; counterpartyId: string }) {
    return toCounterparty(await requireCounterparty(input.scope, input.counterpartyId));
  }

  async function list(input: { scope: Scope; limit: number; cursor?: string | undefined;
    name?: string | undefined; businessRegistrationNumber?: string | undefined;
    closed?: boolean | undefined }) {
    const beforeSequence = cursors.decode(input.scope, input.cursor) ?? null;
    const prefix = input.businessRegistrationNumber?.replaceAll('-', '');
    const rows = await store.listCounterparties(db, input.scope, { beforeSequence,
      name: input.name?.trim() || undefined, numberPrefix: prefix || undefined,
      closed: input.closed }, input.limit + 1);
    const { page, nextCursor } = cursors.pageOf(input.scope, rows, input.limit);
    return { counterparties: page.map(toCounterparty), nextCursor };
  }

  return { create, update, remove, get, list, ...createStatusChecks(deps, requireCounterparty),
    ...createImports(deps) };
}

export type CounterpartiesService = ReturnType<typeof createCounterpartiesService>;
