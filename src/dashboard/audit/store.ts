import { and, desc, eq, lt } from 'drizzle-orm';
import { newId } from '../../domain/ids.ts';
import type { Executor } from '../../platform/db/connect.ts';
import { dashboardAuditEvents } from '../tables.ts';

// The audit log (docs/dashboard.md § The audit log): who did what from the dashboard or the CLI.

export const AUDIT_ACTIONS = ['user.signedIn', 'user.signedOut', 'user.signedOutEverywhere',
  'user.created', 'user.passwordChanged', 'user.passwordReset', 'key.created', 'key.revoked',
  'points.testTopUp', 'user.roleChanged', 'user.removed', 'environment.switched',
  // Invitations and password resets by mail.
  'user.invited', 'user.invitationCanceled', 'user.invitationAccepted',
  'user.passwordResetRequested', 'user.passwordResetByLink',
  // The second factor.
  'user.twoFactorEnabled', 'user.twoFactorDisabled', 'user.recoveryCodeUsed',
  'user.twoFactorReset', 'account.twoFactorRequired', 'account.twoFactorOptional',
  // The webhooks page.
  'webhook.endpointCreated', 'webhook.endpointUpdated', 'webhook.endpointEnabled',
  'webhook.endpointDisabled', 'webhook.secretRotated', 'webhook.eventResent',
  // The owner business page.
  'business.saved', 'business.certificateLinkCreated',
  // The connections, issuers and lookups pages.
  'connection.linkCreated', 'connection.disconnected', 'connection.collectRequested',
  'connection.syncRequested', 'issuer.created', 'issuer.updated',
  'issuer.certificateLinkCreated', 'lookup.businessProfile', 'lookup.registrationStatus',
  'lookup.bankHolders',
  // The counterparties page (target: the counterparty, or the import).
  'counterparty.created', 'counterparty.updated', 'counterparty.deleted',
  'counterparty.statusChecked', 'counterparty.imported',
  // The operator's pages.
  'operator.accountCreated', 'operator.planChanged', 'operator.pointsGranted',
  'operator.holidayAdded', 'operator.holidayRemoved',
  // An operator's read-only look at an account (recorded in both accounts' logs).
  'operator.accountViewed', 'operator.accountViewEnded',
  // Cash receipts, documents, books and bank transactions.
  'cashReceipt.issued', 'cashReceipt.canceled', 'document.requested', 'books.collectionRequested',
  'bank.syncRequested',
  // The tax-invoice pages (target: the document's issuance key; for an amendment, the
  // original's).
  'taxInvoice.issued', 'taxInvoice.canceled', 'taxInvoice.amended', 'taxInvoice.mailResent',
  'taxInvoice.attached', 'taxInvoice.attachmentDeleted',
  'taxInvoice.requestApproved', 'taxInvoice.requestRefused', 'taxInvoice.requestCanceled',
  // The upload page (target: the bulk).
  'taxInvoice.uploaded',
] as const;
export type AuditAction = (typeof AUDIT_ACTIONS)[number];

export type AuditEntry = {
  accountId: string;
  environment?: string | null;
  actor: { userId: string; email: string } | null;
  action: AuditAction;
  target?: string | null;
  address?: string | null;
};

export async function recordAudit(tx: Executor, entry: AuditEntry): Promise<void> {
  await tx.insert(dashboardAuditEvents).values({ id: newId('auditEvent'),
    accountId: entry.accountId, environment: entry.environment ?? null,
    actorUserId: entry.actor?.userId ?? null, actorEmail: entry.actor?.email ?? null,
    action: entry.action, target: entry.target ?? null, address: entry.address ?? null });
}

export type AuditRow = typeof dashboardAuditEvents.$inferSelect;

// One page of an account's audit log, newest first: the rows recorded before `beforeSequence`,
// in the order they were recorded (two in the same instant keep theirs).
export async function listAudit(tx: Executor, accountId: string, limit: number,
  beforeSequence?: number): Promise<AuditRow[]> {
  const { sequence } = dashboardAuditEvents;
  return tx.select().from(dashboardAuditEvents)
    .where(and(eq(dashboardAuditEvents.accountId, accountId),
      beforeSequence === undefined ? undefined : lt(sequence, beforeSequence)))
    .orderBy(desc(sequence)).limit(limit);
}
