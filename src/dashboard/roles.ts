// Who may do what in the dashboard (docs/dashboard.md § Users and roles): one table, checked in one
// place (the router, before a page's handler runs). A page or action names the permission it needs;
// a role has it when the role is listed here.

export const ROLES = ['owner', 'admin', 'developer', 'issuer', 'viewer'] as const;
export type Role = (typeof ROLES)[number];

const EVERY_ROLE = ROLES;

export const PERMISSIONS = {
  // Read every page of the account: balances, usage, keys (never a key itself), the ledger.
  'account.read': EVERY_ROLE,
  // Create and revoke API keys.
  'keys.manage': ['owner', 'admin', 'developer'],
  // Add, edit and disable webhook endpoints, rotate their secrets, resend and test deliveries.
  'webhooks.manage': ['owner', 'admin', 'developer'],
  // Issue and cancel documents (tax invoices, cash receipts, documents).
  'documents.issue': ['owner', 'admin', 'issuer'],
  // Save tax invoice drafts (from the issue forms or an uploaded file), submit them for approval
  // and delete them (docs/drafts.md): what a member without issue rights prepares for an Issuer
  // or Admin to approve. Approving is documents.issue.
  'drafts.submit': ['owner', 'admin', 'developer', 'issuer'],
  // Require approval of drafts before they are issued, for the whole account.
  'drafts.configure': ['owner', 'admin'],
  // Ask the tax portal for the books, or a bank for an account's transactions, now: free, and
  // changes nothing the account wrote, so everyone but a Viewer may.
  'records.refresh': ['owner', 'admin', 'developer', 'issuer'],
  // Set the owner business and register its joint certificate.
  'business.manage': ['owner', 'admin'],
  // Connect the tax portal and bank accounts, collect or sync now, disconnect.
  'connections.manage': ['owner', 'admin'],
  // Create and edit issuers, register their joint certificates.
  'issuers.manage': ['owner', 'admin'],
  // Add, change, import and delete counterparties and check their status (charged as a
  // lookup).
  'counterparties.manage': ['owner', 'admin', 'issuer'],
  // Run charged lookups (business profiles, registration status, bank account holders).
  'lookups.run': ['owner', 'admin', 'developer', 'issuer'],
  // Top up the test balance (live points are granted by the operator only).
  'points.topUpTest': ['owner', 'admin', 'developer'],
  // Invite, change the role of and remove members; read the audit log.
  'team.manage': ['owner', 'admin'],
  'audit.read': ['owner', 'admin'],
  // What belongs to the owner alone: give ownership away, require a second factor.
  'account.own': ['owner'],
} as const satisfies Record<string, readonly Role[]>;

export type Permission = keyof typeof PERMISSIONS;

export function roleMay(role: Role, permission: Permission): boolean {
  return (PERMISSIONS[permission] as readonly Role[]).includes(role);
}

export function isRole(value: string): value is Role {
  return (ROLES as readonly string[]).includes(value);
}
