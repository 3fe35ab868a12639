import { Type, type TSchema } from '@fastify/type-provider-typebox';
import { ReferenceIdHeaderValue } from '../../platform/idempotency/reference-id-header.ts';
import { openEnum } from '../../platform/open-enum.ts';
import { HasMore, NextCursor, pageQueryFields } from '../../platform/paging.ts';
import { partialSchema } from '../../platform/partial-schema.ts';
import type { DraftStatus } from './tables.ts';

// The TypeBox schemas of drafts (docs/drafts.md): a draft's content is its issuance's body with
// every field optional (src/platform/partial-schema.ts), and a draft's answer says what issuance
// would refuse of it now.

const DRAFT_STATUSES = ['DRAFT', 'SUBMITTED', 'ISSUED'] as const satisfies
  readonly DraftStatus[];

const SupplierKeyValue = Type.String({
  minLength: 1, maxLength: 100, pattern: '^[A-Za-z0-9_-]+$',
  description: 'The `supplierKey` of the issuer that will issue the draft. It may be left out ' +
    'until the draft is issued; issuance checks it.',
});

export const DraftHeaders = Type.Object({ 'supplier-key': Type.Optional(SupplierKeyValue) });

export const DraftIssueHeaders = Type.Object({
  'service-client-reference-id': ReferenceIdHeaderValue,
});

export const DraftIdParams = Type.Object(
  { draftId: Type.String({ minLength: 1, maxLength: 100, pattern: '^drf_[A-Za-z0-9_-]+$',
    description: 'The draft, `drf_…`.', examples: ['drf_3q2Yw8kR5nC1xZ0aB7dE9f'] }) },
  { additionalProperties: false },
);

export const DraftListQuery = Type.Object(
  {
    status: Type.Optional(Type.Union([Type.Enum(DRAFT_STATUSES), Type.Array(
      Type.Enum(DRAFT_STATUSES), { maxItems: 3 })], {
      description: 'Only drafts in these statuses (repeat the parameter for several).' })),
    ...pageQueryFields('drafts'),
  },
  { additionalProperties: false },
);

const Problem = Type.Object(
  {
    code: Type.String({ description: 'The error code issuance would answer, as in ' +
      'docs/errors.md.' }),
    message: Type.String({ description: 'Its message, naming the field.' }),
  },
  { title: 'DraftIssueProblem', additionalProperties: false },
);

const instant = (description: string) =>
  Type.Union([Type.String({ format: 'date-time' }), Type.Null()], { description });

// The body of a save: the issuance body, every field optional; a PATCH's: the same as a JSON
// merge patch (RFC 7396), where null removes a field.
export function draftBodies<T>(issueBody: TSchema, names: { content: string; patch: string;
  what: string }) {
  const content = partialSchema<Partial<T>>(issueBody, { title: names.content,
    description: `The body of ${names.what}'s issuance, every field optional: what is there ` +
      'must have the type and size issuance requires; what is missing is reported in ' +
      '`issueProblems` until the draft is issued.' });
  const patch = partialSchema<Record<string, unknown>>(issueBody, { title: names.patch,
    nullable: true, description: `A JSON merge patch (RFC 7396) of the draft's body: objects ` +
      'merge field by field, arrays replace, null removes a field. The result is checked as a ' +
      'saved body is.' });
  // What a read draft carries: the same, with its enums open, as every answer's are.
  const view = partialSchema<Partial<T>>(issueBody, {
    title: names.content.replace(/Body$/, 'Content'), openEnums: true,
    description: `The saved body of ${names.what}'s issuance, every field optional; ` +
      '`issueProblems` says what issuance would refuse now.' });
  return { content, patch, view };
}

export function draftSchema(content: TSchema, names: { title: string; what: string }) {
  return Type.Object(
    {
      draftId: Type.String({ description: 'The draft, `drf_…`.' }),
      status: openEnum(DRAFT_STATUSES, 'DRAFT (editable), SUBMITTED (waits for an approver; ' +
        'read only) or ISSUED (`issuanceKey` names the document).'),
      supplierKey: Type.Union([Type.String(), Type.Null()], { description: 'The issuer that ' +
        'will issue it; null until given.' }),
      body: content,
      issueProblems: Type.Union([Type.Array(Problem), Type.Null()], { description: 'What ' +
        `issuing ${names.what} from this draft would refuse now, in the order issuance checks ` +
        'it (issuance stops at the first); empty when it would be accepted. Null on the ' +
        'list and on an issued draft: read a draft to learn them.' }),
      issuanceKey: Type.Union([Type.String(), Type.Null()], { description: 'The document ' +
        'it became, once ISSUED.' }),
      returnReason: Type.Union([Type.String(), Type.Null()], { description: 'Why an approver ' +
        'sent it back the last time one did.' }),
      createdBy: Type.String({ description: 'The API key id that made it, or `dashboard:<user ' +
        'id>`.' }),
      createdAt: Type.String({ format: 'date-time' }),
      updatedAt: Type.String({ format: 'date-time' }),
      submittedAt: instant('When it was submitted for approval, while it waits.'),
      issuedAt: instant('When it was issued.'),
    },
    { title: names.title, description: `A saved ${names.what}, issued later.`,
      additionalProperties: false },
  );
}

export function draftPageSchema(draft: TSchema, title: string) {
  return Type.Object(
    { drafts: Type.Array(draft, { description: 'In the order they were made.' }),
      nextCursor: NextCursor, hasMore: HasMore },
    { title, description: 'A page of drafts.', additionalProperties: false },
  );
}

export type DraftView = {
  draftId: string;
  status: DraftStatus;
  supplierKey: string | null;
  body: Record<string, unknown>;
  issueProblems: Array<{ code: string; message: string }> | null;
  issuanceKey: string | null;
  returnReason: string | null;
  createdBy: string;
  createdAt: string;
  updatedAt: string;
  submittedAt: string | null;
  issuedAt: string | null;
  // Counts every change: what a change made from this reading names (`expectedVersion`) so it
  // applies only to the draft as it was read. Not in the API's answer, whose schema lists what
  // it carries.
  version: number;
};

