import assert from 'node:assert/strict';

// The guides the API reference (/docs and the document's description) points its readers to.
// They are files of the etax repository, named by their paths from its root, so a guide named
// here always exists (test/platform/openapi.test.ts). Where the repository is published is the
// operator's to say: GUIDES_BASE_URL, an address under which its files are read, turns the
// paths into links; unset, the paths are named without links rather than linked to nowhere.

export type Guide = { path: string; title: string };

// A section of the API reference: an OpenAPI tag, declared with its description, and the guides
// that explain its operations. Each area module lists its own (AreaModule.reference), so the
// document declares every tag its operations use and lists every guide, with nothing to keep
// in step by hand.
export type ReferenceSection = { tag: string; description: string; guides: readonly Guide[] };

// The guides about etax as a whole, listed before the areas' own.
const PLATFORM_GUIDES: readonly Guide[] = [
  { path: 'README.md', title: 'Overview: running etax and its settings' },
  { path: 'docs/quickstart.md', title: 'Quick start: from a key to a transmitted tax invoice' },
  { path: 'README.ko.md', title: '한국어: etax 소개와 실행' },
  { path: 'docs/ko/quickstart.md', title: '빠른 시작 (한국어)' },
  { path: 'docs/auth.md', title: 'Authentication and API keys' },
  { path: 'docs/errors.md', title: 'Errors' },
  { path: 'docs/api-conventions.md', title: 'API conventions: lists, names, values, errors' },
  { path: 'docs/limits.md', title: 'Limits' },
  { path: 'docs/idempotency.md', title: 'Idempotency' },
  { path: 'docs/plans.md', title: 'Plans' },
  { path: 'docs/sandbox.md', title: 'Sandbox' },
  { path: 'docs/dashboard.md', title: 'The dashboard: pages, roles and sessions' },
  { path: 'docs/mcp.md', title: 'MCP: etax for AI agents, preview and confirmation' },
  { path: 'docs/operations.md', title: 'Operating etax: processes, health, jobs and mail' },
  { path: 'docs/architecture.md', title: 'Architecture: how the code is laid out' },
];
// Listed last: the client of every section.
const SDK_GUIDE: Guide = { path: 'sdk/README.md', title: 'The TypeScript SDK, @etax/sdk' };

// Every guide of the reference: etax's own, then each section's in order, then the SDK's; a
// guide two sections share is listed once.
export function referenceGuides(sections: readonly ReferenceSection[]): Guide[] {
  const guides = [...PLATFORM_GUIDES, ...sections.flatMap((section) => section.guides),
    SDK_GUIDE];
  return guides.filter((guide, index) =>
    guides.findIndex((other) => other.path === guide.path) === index);
}

// The Markdown list of the guides: links under `baseUrl` (ending in '/'), or their paths.
export function referenceGuidesMarkdown(guides: readonly Guide[],
  baseUrl: string | undefined): string {
  assert(baseUrl === undefined || baseUrl.endsWith('/'));
  if (baseUrl === undefined) {
    const items = guides.map(({ path, title }) => `- ${title}: \`${path}\``);
    return ['Guides, in the etax repository:', '', ...items].join('\n');
  }
  const items = guides.map(({ path, title }) =>
    `- [${title}](${new URL(path, baseUrl).href})`);
  return ['Guides:', '', ...items].join('\n');
}
