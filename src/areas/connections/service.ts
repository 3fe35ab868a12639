import { newId } from '../../domain/ids.ts';
import type { SealingKey } from '../../domain/sealed-box.ts';
import type { Environment } from '../../platform/accounts/keys.ts';
import type { Db, Executor } from '../../platform/db/connect.ts';
import { cursorString, type PageCursors } from '../../platform/cursor.ts';
import { cursorTimestamp } from '../../platform/cursor-timestamps.ts';
import { ApiError } from '../../platform/errors.ts';
import { notConfiguredMessage } from '../../platform/live-services.ts';
import type { Scope } from '../../platform/scope.ts';
import { failureOfRow } from '../../platform/stored-failure.ts';
import type { BankAccountPortal } from '../../upstream/bank-accounts/index.ts';
import type { PortalCredentials, TaxPortal } from '../../upstream/tax-portal/index.ts';
import {
  openCredentials,
  sealCredentials,
  type StoredCredentials,
} from './credentials.ts';
import * as store from './store.ts';

// Connections (docs/connections.md): an account connects outside systems (the tax portal, bank
// accounts) with credentials etax keeps sealed and never returns. A connection is verified when
// it is made: the adapter logs in, and only a login that works is stored, so wrong credentials
// never rest in the database. Areas that use a connection (the revenue and expense books, bank
// transactions) open its credentials through this service and report each sync back.

export type ConnectInput =
  | { kind: 'HOMETAX'; method: 'PASSWORD'; businessRegistrationNumber: string; userId: string;
    password: string }
  // The joint certificate of an issuer of the same account (src/areas/issuers).
  | { kind: 'HOMETAX'; method: 'CERTIFICATE'; issuerId: string }
  | { kind: 'BANK_ACCOUNT'; bankCode: string; accountNumber: string; userId: string;
    password: string };

export type ConnectOutcome =
  | { kind: 'connected'; connection: ConnectionView }
  | { kind: 'failed'; code: string; message: string };

export type ConnectionView = ReturnType<typeof toView>;

// Who the outside systems are for an environment: null where live has no gateway configured.
type ConnectionAdapters = (environment: Environment) => {
  taxPortal: TaxPortal | null;
  bankAccounts: BankAccountPortal | null;
};

type ServiceDeps = {
  db: Db;
  sealing: SealingKey;
  cursors: PageCursors;
  adapters: ConnectionAdapters;
  timeoutMs: number;
  now: () => Date;
  // The registration number of an issuer of the scope with a registered joint certificate;
  // throws NOT_FOUND or CERTIFICATE_NOT_REGISTERED otherwise.
  certificateBusiness(scope: Scope, issuerId: string): Promise<string>;
  // Whether an active issuer of the scope has this business registration number.
  issuesFor(scope: Scope, businessRegistrationNumber: string, executor: Executor):
    Promise<boolean>;
};

export const maskAccountNumber = (number: string) =>
  `${'*'.repeat(Math.max(number.length - 4, 0))}${number.slice(-4)}`;

// What a bank account number's digest is for (src/domain/sealed-box.ts § keyed digests).
const ACCOUNT_NUMBER_DIGEST = 'bank-account-number';

// A bank account connection's subject: the bank code and the keyed digest of the number, under
// the current key (subject) and every configured key (for lookups until `etax reseal`).
export function bankAccountSubjects(sealing: SealingKey, bankCode: string,
  accountNumber: string) {
  const [subject, ...older] = sealing.digests(accountNumber, ACCOUNT_NUMBER_DIGEST)
    .map((digest) => `${bankCode}:${digest}`);
  return { subject: subject!, all: [subject!, ...older] };
}

function toView(row: store.ConnectionRow) {
  const [bankCode] = row.subject.split(':') as [string];
  return {
    id: row.id,
    kind: row.kind as store.ConnectionKind,
    method: row.method as 'PASSWORD' | 'CERTIFICATE',
    businessRegistrationNumber: row.kind === 'HOMETAX' ? row.subject : null,
    bankCode: row.kind === 'BANK_ACCOUNT' ? bankCode : null,
    accountNumber: row.kind === 'BANK_ACCOUNT' ? row.maskedAccountNumber ?? '' : null,
    displayName: row.displayName,
    state: row.state as 'CONNECTED' | 'FAILED' | 'EXPIRED',
    status: row.state as 'CONNECTED' | 'FAILED' | 'EXPIRED',
    failure: failureOfRow(row),
    connectedAt: row.connectedAt?.toISOString() ?? null,
    lastSyncedAt: row.lastSyncedAt?.toISOString() ?? null,
    createdAt: row.createdAt.toISOString(),
  };
}

function unavailable(): never {
  throw new ApiError('SERVICE_UNAVAILABLE', 'The outside system cannot be reached now. ' +
    'Retry later.');
}

// A live connection to a system this server has no gateway for: no retry will help.
function notConfigured(service: 'TAX_PORTAL' | 'BANK_ACCOUNTS'): never {
  throw new ApiError('SERVICE_UNAVAILABLE', notConfiguredMessage(service));
}

type Subject = { subject: string; subjects: string[]; maskedAccountNumber: string | null };

async function credentialsOf(deps: ServiceDeps, tx: Executor, scope: Scope,
  input: ConnectInput):
  Promise<Subject & { stored: StoredCredentials }> {
  if (input.kind === 'BANK_ACCOUNT') {
    const { bankCode, accountNumber, userId, password } = input;
    const { subject, all } = bankAccountSubjects(deps.sealing, bankCode, accountNumber);
    return { subject, subjects: all, maskedAccountNumber: maskAccountNumber(accountNumber),
      stored: { kind: 'BANK_ACCOUNT', bank: { bankCode, accountNumber, userId, password } } };
  }
  // The sandbox portal logs any number in, so a test key could read, as purchases, the invoices
  // other accounts issue to a number it merely typed: it connects only businesses it issues
  // for. Checked before the login, so a refusal tries nothing and keeps nothing.
  if (input.method === 'PASSWORD' && scope.environment === 'test' &&
    !(await deps.issuesFor(scope, input.businessRegistrationNumber, tx))) {
    throw new ApiError('SANDBOX_CONNECTION_NOT_ALLOWED');
  }
  const portal: PortalCredentials = input.method === 'PASSWORD'
    ? { method: 'PASSWORD', businessRegistrationNumber: input.businessRegistrationNumber,
      userId: input.userId, password: input.password }
    : { method: 'CERTIFICATE', issuerId: input.issuerId,
      businessRegistrationNumber: await deps.certificateBusiness(scope, input.issuerId) };
  const subject = portal.businessRegistrationNumber;
  return { subject, subjects: [subject], maskedAccountNumber: null,
    stored: { kind: 'HOMETAX', portal } };
}

// The outside system's answer to a login with the credentials, within the timeout.
async function login(deps: ServiceDeps, environment: Environment, stored: StoredCredentials) {
  const adapters = deps.adapters(environment);
  const signal = AbortSignal.timeout(deps.timeoutMs);
  if (stored.kind === 'HOMETAX') {
    if (adapters.taxPortal === null) notConfigured('TAX_PORTAL');
    const answer = await adapters.taxPortal.login(stored.portal, signal);
    return answer.kind === 'connected' ? { ...answer, displayName: answer.businessName }
      : answer;
  }
  if (adapters.bankAccounts === null) notConfigured('BANK_ACCOUNTS');
  const answer = await adapters.bankAccounts.login(stored.bank, signal);
  return answer.kind === 'connected' ? { ...answer, displayName: answer.holderName } : answer;
}

// A connection of the same subject keeps its id (its credentials are sealed with that id); one
// found by a digest under a key that was replaced takes the current key's digest.
async function connectionIdFor(tx: Executor, scope: Scope, kind: store.ConnectionKind,
  { subject, subjects }: Pick<Subject, 'subject' | 'subjects'>): Promise<string> {
  const existing = await store.findConnectionBySubjects(tx, scope, kind, subjects);
  if (existing !== null && existing.subject !== subject) {
    await store.replaceSubject(tx, existing.id, existing.subject, subject);
  }
  return existing?.id ?? newId('connection');
}

// A bank account connection with what reaches the account: its bank code and full account
// number, opened from its credentials, for the area that keeps the account's transactions.
// Never for a response.
function withAccount(sealing: SealingKey, row: store.ConnectionRow) {
  const credentials = openCredentials(sealing, row.id, row.sealedCredentials);
  if (credentials.kind !== 'BANK_ACCOUNT') throw new Error(`${row.id} is not a bank account`);
  const { bankCode, accountNumber } = credentials.bank;
  return { connection: toView(row), scope: { accountId: row.accountId,
    environment: row.environment as Environment }, bankCode, accountNumber };
}

type PageInput = { cursor?: string; limit: number };

// One page of the scope's connections, oldest first, and the cursor of the next.
// A cursor opens only for the list it was written for: the connections of one kind, or all.
async function connectionsPage(db: Db, cursors: PageCursors, scope: Scope,
  input: { kind?: store.ConnectionKind; cursor?: string; limit: number }) {
  const at = { list: `connections.list.${input.kind ?? 'ALL'}`, scope };
  const after = input.cursor === undefined ? undefined
    : (([position, id]) => ({ position, id }))(cursors.decode(at, input.cursor,
      [cursorTimestamp, cursorString(/^con_[A-Za-z0-9_-]{1,200}$/)]));
  const rows = await store.listConnectionsPage(db, scope, { kind: input.kind, after,
    limit: input.limit + 1 });
  const shown = rows.slice(0, input.limit);
  const last = shown.at(-1);
  const nextCursor = rows.length > input.limit && last !== undefined
    ? cursors.encode(at, [last.position, last.row.id]) : null;
  return { rows: shown.map(({ row }) => row), nextCursor, hasMore: nextCursor !== null };
}

// A page of them, for GET /v1/connections.
async function listPage(db: Db, cursors: PageCursors, scope: Scope,
  input: PageInput & { kind?: store.ConnectionKind }) {
  const { rows, ...paging } = await connectionsPage(db, cursors, scope, input);
  return { items: rows.map(toView), ...paging };
}

// A page of the bank accounts, oldest connection first (GET /v1/bankAccounts).
async function listBankAccountsPage(db: Db, cursors: PageCursors, sealing: SealingKey,
  scope: Scope, input: PageInput) {
  const { rows, ...paging } = await connectionsPage(db, cursors, scope, { ...input,
    kind: 'BANK_ACCOUNT' });
  return { accounts: rows.map((row) => withAccount(sealing, row)), ...paging };
}

export function createConnectionsService(deps: ServiceDeps) {
  const { db, sealing } = deps;

  // Logs in with the credentials and stores the connection when the login works; a failed
  // login is answered and nothing is stored. 503 when the outside system cannot be reached.
  async function connect(scope: Scope, input: ConnectInput, tx: Executor = db):
    Promise<ConnectOutcome> {
    const { subject, subjects, maskedAccountNumber, stored } =
      await credentialsOf(deps, tx, scope, input);
    const answer = await login(deps, scope.environment, stored);
    if (answer.kind === 'unavailable') unavailable();
    if (answer.kind === 'failed') return answer;
    const method = input.kind === 'HOMETAX' ? input.method : 'PASSWORD';
    const fields = { method, displayName: answer.displayName, state: 'CONNECTED',
      connectedAt: deps.now(), maskedAccountNumber };
    const id = await connectionIdFor(tx, scope, input.kind, { subject, subjects });
    const row = await store.upsertConnection(tx, { id, ...scope, kind: input.kind, subject,
      ...fields, sealedCredentials: sealCredentials(sealing, id, stored) });
    if (row.id !== id) {
      // Another request connected the same subject meanwhile: seal with the id that stayed.
      const again = await store.upsertConnection(tx, { id: row.id, ...scope, kind: input.kind,
        subject, ...fields, sealedCredentials: sealCredentials(sealing, row.id, stored) });
      return { kind: 'connected', connection: toView(again) };
    }
    return { kind: 'connected', connection: toView(row) };
  }

  // Every connection of the scope, for the operator's CLI.
  async function list(scope: Scope, kind?: store.ConnectionKind) {
    return (await store.listConnections(db, scope, kind)).map(toView);
  }


  async function disconnect(scope: Scope, id: string) {
    if (!(await store.deleteConnection(db, scope, id))) {
      throw new ApiError('NOT_FOUND', 'No connection has this id.');
    }
  }

  // For the areas that use connections: the connection of `kind` with its credentials opened.
  async function openConnection(scope: Scope, id: string) {
    const row = await store.findConnection(db, scope, id);
    if (row === null) return null;
    return { connection: toView(row), credentials: openCredentials(sealing, row.id,
      row.sealedCredentials) };
  }

  async function firstConnection(scope: Scope, kind: store.ConnectionKind) {
    const [row] = await store.listConnections(db, scope, kind);
    return row === undefined ? null : toView(row);
  }


  async function listBankAccounts(scope: Scope) {
    return (await store.listConnections(db, scope, 'BANK_ACCOUNT'))
      .map((row) => withAccount(sealing, row));
  }

  // The CONNECTED bank accounts of every scope, a page at a time in connection id order.
  async function connectedBankAccountsAfter(after: string | null, limit: number) {
    return (await store.connectedBankAccountsAfter(db, after, limit))
      .map((row) => withAccount(sealing, row));
  }

  return {
    connect, list, disconnect, openConnection, firstConnection, listBankAccounts,
    listPage: (scope: Scope, input: PageInput & { kind?: store.ConnectionKind }) =>
      listPage(db, deps.cursors, scope, input),
    listBankAccountsPage: (scope: Scope, input: PageInput) =>
      listBankAccountsPage(db, deps.cursors, sealing, scope, input),
    connectedBankAccountsAfter,
    // A sync that worked, or failed: the list shows the connection's state and last sync.
    recordSync: (tx: Executor, id: string, change: Parameters<typeof store.recordSync>[2]) =>
      store.recordSync(tx, id, change),
    // The accounts connected to each business (a purchase's recipients), in one query: by
    // `${environment}:${number}`.
    scopesConnectedTo: async (tx: Executor,
      businesses: ReadonlyArray<{ environment: Environment; number: string }>):
      Promise<Map<string, Scope[]>> => {
      const found = new Map<string, Scope[]>();
      for (const row of await store.scopesConnectedTo(tx, businesses)) {
        const key = `${row.environment}:${row.number}`;
        found.set(key, [...found.get(key) ?? [],
          { accountId: row.accountId, environment: row.environment as Environment }]);
      }
      return found;
    },
  };
}

export type ConnectionsService = ReturnType<typeof createConnectionsService>;
