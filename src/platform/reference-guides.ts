import assert from 'node:assert/strict';

// The guides the API reference (/docs and the document's description) points its readers to.
// They are files of the etax repository, named by their paths from its root, so a guide named
// here always exists (test/platform/openapi.test.ts). Where the repository is published is the
// operator's to say: GUIDES_BASE_URL, an address under which its files are read, turns the
// paths into links; unset, the paths are named without links rather than linked to nowhere.

export const REFERENCE_GUIDES = [
  { path: 'README.md', title: 'Overview: running etax and its settings' },
  { path: 'docs/quickstart.md', title: 'Quick start: from a key to a transmitted tax invoice' },
  { path: 'docs/auth.md', title: 'Authentication and API keys' },
  { path: 'docs/errors.md', title: 'Errors' },
  { path: 'docs/limits.md', title: 'Limits' },
  { path: 'docs/idempotency.md', title: 'Idempotency' },
  { path: 'docs/points.md', title: 'Points' },
  { path: 'docs/sandbox.md', title: 'Sandbox' },
  { path: 'docs/webhooks.md', title: 'Webhooks' },
  { path: 'docs/tax-invoices.md', title: 'Tax invoices' },
  { path: 'docs/tax-invoice-amendments.md', title: 'Tax invoice amendments' },
  { path: 'docs/reverse-issuance.md', title: 'Reverse issuance' },
  { path: 'docs/issuers.md', title: 'Issuers and joint certificates' },
  { path: 'docs/business-profiles.md', title: 'Business profiles' },
  { path: 'docs/registration-status.md', title: 'Business registration status' },
  { path: 'docs/bank-account-holders.md', title: 'Bank account holders' },
  { path: 'sdk/README.md', title: 'The TypeScript SDK, @etax/sdk' },
] as const;

// The Markdown list of the guides: links under `baseUrl` (ending in '/'), or their paths.
export function referenceGuidesMarkdown(baseUrl: string | undefined): string {
  assert(baseUrl === undefined || baseUrl.endsWith('/'));
  if (baseUrl === undefined) {
    const items = REFERENCE_GUIDES.map(({ path, title }) => `- ${title}: \`${path}\``);
    return ['Guides, in the etax repository:', '', ...items].join('\n');
  }
  const items = REFERENCE_GUIDES.map(({ path, title }) =>
    `- [${title}](${new URL(path, baseUrl).href})`);
  return ['Guides:', '', ...items].join('\n');
}
