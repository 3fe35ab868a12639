import { seoulDate } from '../../../domain/business-days.ts';
import { newId } from '../../../domain/ids.ts';
import type { Environment } from '../../../platform/accounts/keys.ts';
import type { Db, Tx } from '../../../platform/db/connect.ts';
import { ApiError } from '../../../platform/errors.ts';
import {
  createReplayFinder,
  findReplay,
  requestFingerprint,
  runIdempotent,
} from '../../../platform/idempotency/claims.ts';
import type { PriceRow } from '../../../platform/operations.ts';
import type { PointsService } from '../../../platform/points/service.ts';
import { currentRequestId } from '../../../platform/request-context.ts';
import type { Caller } from '../../../platform/scope.ts';
import type { IssuersService } from '../../issuers/index.ts';
import { createIssuanceBatches, TAKEN } from '../acceptance/batches.ts';
import { chargeReceipts, type UnchargedReceipt } from '../acceptance/charges.ts';
import { NO_SUCH_RECEIPT, requireReceipt } from '../retrieval/service.ts';
import type { CancelInput, IssueInput } from '../schemas.ts';
import * as store from '../store.ts';
import type { SealingKey } from '../../../domain/sealed-box.ts';
import { openIdentityNumber, sealIdentityNumber } from '../identity-numbers.ts';
import {
  validateCancelAmounts,
  checkVat,
  isVatOfSupply,
  vatOfSupply,
  validateIssue,
  type CancelAmounts,
} from '../acceptance/validation.ts';

// Cash receipts (docs/cash-receipts.md): issuance and cancellation, accepted with 202 and the
// reference id's replay-or-conflict rule, then processed by the jobs (reading them is
// retrieval/'s). Everything is scoped to the calling key's account and environment; a receipt of
// another scope is 404 NOT_FOUND.
//
// Accepting a request:
//   1. a reference id this key used before answers its stored response (202 with the same
//      issuanceKey) or 409 IDEMPOTENCY_CONFLICT, whatever else would now be refused, and
//      nothing is charged (an issuance finds it in step 3 unless step 2 refuses it; see issue);
//   2. the body is validated and the merchant resolved, so bad input costs nothing;
//   3. one transaction claims the reference id, debits the price (402 or 409 when the points
//      available do not cover it, and the claim is taken back) and records the receipt, due
//      for approval at once (a cancellation locks its original and checks what remains);
//      issuances accepted at the same moment share that transaction (../acceptance/batches.ts).
//      The charge commits exactly when the receipt does, so there is no reservation to settle
//      afterwards. A duplicate that lost the race to the claim replays (or conflicts) instead,
//      and pays nothing.

type ServiceDeps = {
  db: Db;
  // Seals identity numbers (identity-numbers.ts).
  sealing: SealingKey;
  points: Pick<PointsService, 'debitInTransaction' | 'requireAvailable'>;
  issuers: Pick<IssuersService, 'resolveSupplierKey'>;
  // False when receipts of this environment cannot reach the authority (no live gateway).
  authorityAvailable(environment: Environment): boolean;
  prices: Record<Extract<PriceRow, `cashReceipts.${string}`>, number>;
  now: () => Date;
};

const ISSUE_ROUTE = '/v1/cashReceipts/issue';
// The fingerprint's route names the receipt canceled, so one reference id cannot cancel two.
const cancelRoute = (issuanceKey: string) => `/v1/cashReceipts/${issuanceKey}/cancel`;

// What remains of an issuance, per amount.
function remainingOf(row: store.CashReceiptRow): CancelAmounts {
  return {
    supplyCost: row.supplyCost - row.canceledSupplyCost,
    tax: row.tax - row.canceledTax,
    serviceFee: row.serviceFee - row.canceledServiceFee,
    totalAmount: row.totalAmount - row.canceledAmount,
  };
}

function exceeds(requested: CancelAmounts, remaining: CancelAmounts): boolean {
  return requested.supplyCost > remaining.supplyCost || requested.tax > remaining.tax ||
    requested.serviceFee > remaining.serviceFee || requested.totalAmount > remaining.totalAmount;
}

// A partial cancellation of a taxable receipt keeps the VAT in proportion, in what it takes and
// in what it leaves, so no sequence of them ends in a cancellation of tax without supply (or the
// reverse). Cancelling what remains is never refused for it: it reverses the rest as it is,
// and a receipt issued before the VAT was checked may leave a rest out of proportion.
function checkProportions(original: store.CashReceiptRow, requested: CancelAmounts,
  remaining: CancelAmounts) {
  if (original.taxation !== 'TAXABLE') return;
  checkVat(requested, 'body', 'a partial cancellation of a TAXABLE receipt');
  const left = { supplyCost: remaining.supplyCost - requested.supplyCost,
    tax: remaining.tax - requested.tax };
  if (!isVatOfSupply(original.supplyCost, original.tax) ||
    isVatOfSupply(left.supplyCost, left.tax)) return;
  throw new ApiError('INVALID_REQUEST', `body: the cancellation would leave supplyCost ` +
    `${left.supplyCost} and tax ${left.tax} of the receipt, a tax that is not the VAT of the ` +
    `supply cost left (${vatOfSupply(left.supplyCost)} within rounding). Give a tax that keeps ` +
    `both in proportion (${remaining.tax - vatOfSupply(left.supplyCost)} for this supply cost), ` +
    'or omit the amounts to cancel what remains.');
}

type Accepted = { issuanceKey: string };

// Work of a request that issues something kept (a draft, src/areas/drafts/) in the transaction
// that records the receipt: `guard` before (throws ApiError to refuse; nothing is kept or
// charged), `onRecorded` after, with the receipt's key.
type OwnWork = { guard(tx: Tx): Promise<void>;
  onRecorded(tx: Tx, issuanceKey: string): Promise<void> };

// previewIssue checks an issuance as issue checks it, with nothing kept or charged, and throws
// the ApiError issue would answer.
type IssueRequest = { caller: Caller; supplierKey: string; referenceId: string;
  body: IssueInput;
  // The route the reference id's fingerprint names (the issue route unless said).
  route?: string;
  inTransaction?: OwnWork };

type IssueClaim = { apiKeyId: string; namespace: 'cashReceipt'; referenceId: string;
  fingerprint: string };

function issueClaim(input: IssueRequest): IssueClaim {
  return { apiKeyId: input.caller.apiKeyId, namespace: 'cashReceipt',
    referenceId: input.referenceId,
    fingerprint: requestFingerprint({ method: 'POST', route: input.route ?? ISSUE_ROUTE,
      body: input.body }) };
}
// A receipt an issuance would record, as a validation shows it: its identity number masked.
function receiptPreview(row: UnchargedReceipt) {
  return {
    merchant: { businessRegistrationNumber: row.merchantNumber,
      organizationName: row.merchantName, representativeName: row.merchantRepresentative },
    tradeDate: row.tradeDate, usage: row.usage,
    identityNumber: row.maskedIdentityNumber ?? '',
    taxation: row.taxation, tradeOption: row.tradeOption, supplyCost: row.supplyCost,
    tax: row.tax, serviceFee: row.serviceFee, totalAmount: row.totalAmount,
    itemName: row.itemName, customer: row.customer ?? null,
  };
}

// What a cancellation of `original` takes (the amounts requested, or what remains), or the
// ApiError that refuses it; the same for a cancellation and its validation.
function decideCancellation(original: store.CashReceiptRow, requested: CancelAmounts | null):
CancelAmounts {
  if (original.kind !== 'ISSUANCE') {
    throw new ApiError('CASH_RECEIPT_NOT_CANCELABLE', 'A cancellation receipt cannot be ' +
      'canceled; cancel the original receipt instead.');
  }
  if (original.status !== 'ISSUED' && original.status !== 'TRANSMITTED') {
    throw new ApiError('CASH_RECEIPT_NOT_CANCELABLE', `The cash receipt is ` +
      `${original.status}; only an ISSUED or TRANSMITTED receipt can be canceled.`);
  }
  const remaining = remainingOf(original);
  if (remaining.totalAmount === 0) {
    throw new ApiError('CASH_RECEIPT_CANCEL_EXCEEDS_REMAINING',
      'The cash receipt is already canceled in full.');
  }
  const amounts = requested ?? remaining;
  if (exceeds(amounts, remaining)) {
    throw new ApiError('CASH_RECEIPT_CANCEL_EXCEEDS_REMAINING', 'The cancellation ' +
      `(supplyCost ${amounts.supplyCost}, tax ${amounts.tax}, serviceFee ` +
      `${amounts.serviceFee}, totalAmount ${amounts.totalAmount}) exceeds what remains ` +
      `(supplyCost ${remaining.supplyCost}, tax ${remaining.tax}, serviceFee ` +
      `${remaining.serviceFee}, totalAmount ${remaining.totalAmount}).`);
  }
  if (requested !== null) checkProportions(original, requested, remaining);
  return amounts;
}

// A cancellation, decided with its original locked until the transaction ends: concurrent
// cancellations of one receipt take turns, each seeing what the others took.
async function cancellationRow(tx: Tx, sealing: SealingKey, input: { caller: Caller;
  issuanceKey: string; referenceId: string; body: CancelInput; requested: CancelAmounts | null;
  now: Date },
): Promise<UnchargedReceipt> {
  const scope = { accountId: input.caller.accountId, environment: input.caller.environment };
  const original = await store.lockReceipt(tx, scope, input.issuanceKey);
  if (original === null) throw new ApiError('NOT_FOUND', NO_SUCH_RECEIPT);
  const amounts = decideCancellation(original, input.requested);
  await store.addCanceled(tx, original.issuanceKey, amounts, 1);
  // The cancellation names the original's customer: its number, sealed again for its own key.
  const issuanceKey = newId('cashReceipt');
  return {
    issuanceKey, accountId: input.caller.accountId,
    environment: input.caller.environment, apiKeyId: input.caller.apiKeyId,
    clientReferenceId: input.referenceId, kind: 'CANCELLATION', status: 'ACCEPTED',
    issuerId: original.issuerId, merchantNumber: original.merchantNumber,
    merchantName: original.merchantName,
    merchantRepresentative: original.merchantRepresentative,
    tradeDate: seoulDate(input.now), usage: original.usage,
    ...sealIdentityNumber(sealing, issuanceKey, openIdentityNumber(sealing, original)),
    taxation: original.taxation,
    tradeOption: original.tradeOption, ...amounts, itemName: original.itemName,
    customer: original.customer, cancelReason: input.body.reason,
    originalIssuanceKey: original.issuanceKey,
    originalApprovalNumber: original.approvalNumber,
    originalTradeDate: original.tradeDate,
  };
}

function issuanceRow(sealing: SealingKey, caller: Caller, referenceId: string,
  issuer: Awaited<ReturnType<ServiceDeps['issuers']['resolveSupplierKey']>>,
  validated: ReturnType<typeof validateIssue>): UnchargedReceipt {
  const issuanceKey = newId('cashReceipt');
  return {
    issuanceKey, accountId: caller.accountId,
    environment: caller.environment, apiKeyId: caller.apiKeyId,
    clientReferenceId: referenceId, kind: 'ISSUANCE', status: 'ACCEPTED',
    issuerId: issuer.id, merchantNumber: issuer.identificationNumber,
    merchantName: issuer.organizationName, merchantRepresentative: issuer.representativeName,
    tradeDate: validated.tradeDate, usage: validated.usage,
    ...sealIdentityNumber(sealing, issuanceKey, validated.identityNumber),
    taxation: validated.taxation,
    tradeOption: validated.tradeOption, supplyCost: validated.supplyCost,
    tax: validated.tax, serviceFee: validated.serviceFee,
    totalAmount: validated.totalAmount, itemName: validated.itemName,
    customer: validated.customer,
  };
}

function requireAuthority(deps: Pick<ServiceDeps, 'authorityAvailable'>,
  environment: Environment) {
  if (!deps.authorityAvailable(environment)) {
    throw new ApiError('SERVICE_UNAVAILABLE', 'Cash receipts cannot be issued with live ' +
      'keys: this server has no tax authority gateway (CASH_RECEIPT_GATEWAY_URL) configured.');
  }
}

type ReplayFinder = ReturnType<typeof createReplayFinder>;

// What an issuance request records, or the ApiError that refuses it.
async function checkIssuance(deps: ServiceDeps, input: { caller: Caller; supplierKey: string;
  referenceId: string; body: IssueInput }): Promise<UnchargedReceipt> {
  const { caller } = input;
  const validated = validateIssue(input.body, deps.now());
  const scope = { accountId: caller.accountId, environment: caller.environment };
  const issuer = await deps.issuers.resolveSupplierKey(scope, input.supplierKey);
  requireAuthority(deps, caller.environment);
  return issuanceRow(deps.sealing, caller, input.referenceId, issuer, validated);
}

// Step 1 comes last on the way of a request that passes step 2: its claim in step 3 finds the
// reference id taken, and the request replays or conflicts without being charged. Only a
// request refused in step 2 looks for an earlier claim first, so that a replay is answered
// even when its content would now be refused. Every request still gets the answer the steps'
// order says, and a new request, the common case, costs no lookup.
// Steps 1 and 2 as issue and validate both take them: the receipt to record, or the answer
// of an earlier request with this reference id that step 2 refused.
async function checkIssuanceOrReplay(deps: ServiceDeps, findEarlierClaim: ReplayFinder,
  input: IssueRequest, claim: IssueClaim):
  Promise<{ row: UnchargedReceipt } | { replay: Accepted }> {
  try {
    return { row: await checkIssuance(deps, input) };
  } catch (error) {
    if (!(error instanceof ApiError)) throw error;
    const replay = await findEarlierClaim(claim);
    if (replay !== null) return { replay: replay.body as Accepted };
    throw error;
  }
}

// What issue would answer, without its effect (POST /v1/cashReceipts:validate): steps 1 and
// 2, then step 3's answers read instead of written: the reference id's replay or 409, then
// the points available for the price (402 or 409). Nothing is claimed, charged or recorded.
function createIssuanceValidation(deps: ServiceDeps) {
  const findEarlierClaim = createReplayFinder(deps.db);
  return async function validateIssuance(input: IssueRequest) {
    const claim = issueClaim(input);
    const checked = await checkIssuanceOrReplay(deps, findEarlierClaim, input, claim);
    const price = { operation: 'cashReceipts.issue' as const,
      points: deps.prices['cashReceipts.issue'] };
    if ('replay' in checked) return { valid: true as const, replayOf: checked.replay.issuanceKey,
      receipt: null, price: { ...price, points: 0 } };
    const replay = (await findReplay(deps.db, claim))?.body as Accepted | undefined;
    if (replay !== undefined) return { valid: true as const, replayOf: replay.issuanceKey,
      receipt: null, price: { ...price, points: 0 } };
    if (price.points > 0) {
      await deps.points.requireAvailable({ accountId: input.caller.accountId,
        environment: input.caller.environment, points: price.points });
    }
    return { valid: true as const, replayOf: null, receipt: receiptPreview(checked.row), price };
  };
}

type CancelRequest = { caller: Caller; issuanceKey: string; referenceId: string;
  body: CancelInput };

function cancelClaim(input: CancelRequest): IssueClaim {
  return { apiKeyId: input.caller.apiKeyId, namespace: 'cashReceipt',
    referenceId: input.referenceId, fingerprint: requestFingerprint({ method: 'POST',
      route: cancelRoute(input.issuanceKey), body: input.body }) };
}

// What cancel would answer, without its effect (POST /v1/cashReceipts/{issuanceKey}/
// cancellations:validate): its steps in its order, the reference id's replay or 409, the
// amounts, the original and what remains of it, then the points available for the price (402 or
// 409). Nothing is claimed, charged or recorded, and the original is not locked.
function createCancelValidation(deps: ServiceDeps) {
  const findEarlierClaim = createReplayFinder(deps.db);
  return async function validateCancel(input: CancelRequest) {
    const { caller } = input;
    const scope = { accountId: caller.accountId, environment: caller.environment };
    const price = { operation: 'cashReceipts.cancel' as const,
      points: deps.prices['cashReceipts.cancel'] };
    const replay = await findEarlierClaim(cancelClaim(input));
    if (replay !== null) return { valid: true as const,
      replayOf: (replay.body as Accepted).issuanceKey, cancellation: null,
      price: { ...price, points: 0 } };
    const requested = validateCancelAmounts(input.body);
    const original = await requireReceipt(deps.db, scope, input.issuanceKey);
    requireAuthority(deps, caller.environment);
    const amounts = decideCancellation(original, requested);
    if (price.points > 0) await deps.points.requireAvailable({ ...scope, points: price.points });
    const remaining = remainingOf(original);
    return { valid: true as const, replayOf: null, cancellation: {
      originalIssuanceKey: original.issuanceKey, reason: input.body.reason, ...amounts,
      remainingAfter: { supplyCost: remaining.supplyCost - amounts.supplyCost,
        tax: remaining.tax - amounts.tax, serviceFee: remaining.serviceFee - amounts.serviceFee,
        totalAmount: remaining.totalAmount - amounts.totalAmount } }, price };
  };
}

// Step 3 for an issuance with work of its own in the transaction (a draft's, see IssueRequest):
// alone, like a cancellation. A replay runs none of it.
async function recordAloneWith(deps: ServiceDeps, caller: Caller, claim: { referenceId: string;
  fingerprint: string }, row: UnchargedReceipt, own: OwnWork): Promise<Accepted> {
  const operation = 'cashReceipts.issue';
  const result = await deps.db.transaction((tx) => runIdempotent(tx,
    { apiKeyId: caller.apiKeyId, namespace: 'cashReceipt', ...claim }, async () => {
      await own.guard(tx);
      const [charged] = await chargeReceipts(tx, deps.points, [{ row, operation,
        priceInPoints: deps.prices[operation], requestId: currentRequestId() }]);
      if (charged instanceof ApiError) throw charged;
      await store.insertReceipt(tx, charged!, deps.now());
      await own.onRecorded(tx, charged!.issuanceKey);
      return { status: 202, body: { issuanceKey: charged!.issuanceKey } };
    }));
  return result.body as Accepted;
}

// Issuance and cancellation: the five steps above.
function createAcceptance(deps: ServiceDeps) {
  const { db } = deps;
  const [recordIssuance, findEarlierClaim] = [createIssuanceBatches({ db,
    points: deps.points, now: deps.now }), createReplayFinder(db)];

  // Step 3 for a cancellation: the claim, the debit and the receipt in one transaction; a
  // refused debit rolls the claim back with it.
  async function recordCancellation(caller: Caller, claim: { referenceId: string;
    fingerprint: string }, build: (tx: Tx) => Promise<UnchargedReceipt>): Promise<Accepted> {
    const operation = 'cashReceipts.cancel';
    const result = await db.transaction((tx) => runIdempotent(tx,
      { apiKeyId: caller.apiKeyId, namespace: 'cashReceipt', ...claim }, async () => {
        const [charged] = await chargeReceipts(tx, deps.points, [{ row: await build(tx),
          operation, priceInPoints: deps.prices[operation], requestId: currentRequestId() }]);
        if (charged instanceof ApiError) throw charged;
        await store.insertReceipt(tx, charged!, deps.now());
        return { status: 202, body: { issuanceKey: charged!.issuanceKey } };
      }));
    return result.body as Accepted;
  }

  async function issue(input: IssueRequest): Promise<Accepted> {
    const { caller } = input;
    const claim = issueClaim(input);
    const checked = await checkIssuanceOrReplay(deps, findEarlierClaim, input, claim);
    if ('replay' in checked) return checked.replay;
    const own = input.inTransaction;
    if (own) return recordAloneWith(deps, caller, claim, checked.row, own);
    // Step 3 in a batch's transaction.
    const recorded = await recordIssuance({ apiKeyId: caller.apiKeyId,
      referenceId: input.referenceId, fingerprint: claim.fingerprint, row: checked.row,
      priceInPoints: deps.prices['cashReceipts.issue'], requestId: currentRequestId() });
    if (recorded instanceof Error) throw recorded;
    if (recorded !== TAKEN) return recorded;
    // Claimed first (by a request that has committed): replay it, or 409 for other content.
    const earlier = await findReplay(db, claim);
    if (earlier === null) throw new Error('a taken claim must be visible once committed');
    return earlier.body as Accepted;
  }

  async function cancel(input: CancelRequest): Promise<Accepted> {
    const { caller } = input;
    const scope = { accountId: caller.accountId, environment: caller.environment };
    const claim = cancelClaim(input);
    const replay = await findEarlierClaim(claim);
    if (replay !== null) return replay.body as Accepted;
    const requested = validateCancelAmounts(input.body);
    await requireReceipt(db, scope, input.issuanceKey);
    requireAuthority(deps, caller.environment);
    return recordCancellation(caller, claim, (tx) =>
      cancellationRow(tx, deps.sealing, { ...input, requested, now: deps.now() }));
  }

  return { issue, cancel, previewIssue: (input: Omit<IssueRequest, 'referenceId'>) =>
    checkIssuance(deps, { ...input, referenceId: '' }).then(() => undefined) };
}
// Issuance and cancellation, and the validation of an issuance without its effect.
export function createIssuanceService(deps: ServiceDeps) {
  return { ...createAcceptance(deps), validateIssuance: createIssuanceValidation(deps),
    validateCancel: createCancelValidation(deps) };
}

export type IssuanceService = ReturnType<typeof createIssuanceService>;
