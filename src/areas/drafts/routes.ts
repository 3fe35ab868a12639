import { Type, type FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { TSchema } from '@fastify/type-provider-typebox';
import { acceptEmptyJsonBodies } from '../../platform/bodyless.ts';
import {
  bodyErrors,
  INPUT_CHECKED_AFTER_COUNTING,
  inputErrors,
  operationErrors,
  type DeclaredError,
} from '../../platform/error-responses.ts';
import type { Operation } from '../../platform/operations.ts';
import { withHasMore } from '../../platform/paging.ts';
import { requestCaller, requestScope } from '../../platform/scope.ts';
import {
  DraftHeaders,
  DraftIdParams,
  DraftIssueHeaders,
  DraftListQuery,
} from './schemas.ts';
import type { DraftService } from './service.ts';

// Drafts under /v1 (docs/drafts.md), the same six operations for each kind:
// POST /<kind>/drafts, GET /<kind>/drafts, GET, PATCH and DELETE /<kind>/drafts/{draftId} and
// POST /<kind>/drafts/{draftId}:issue. Handlers only translate.

const TAGS = ['Drafts'];
const DRAFT_ID_PARAMETER = ':draftId(^[^:/]+)';

export type DraftRouteOptions = {
  drafts: DraftService;
  // `taxInvoices` or `cashReceipts`: the path and the operations' names.
  resource: 'taxInvoices' | 'cashReceipts';
  // `TaxInvoice` or `CashReceipt`: the operation ids.
  noun: string;
  // `tax invoice` or `cash receipt`, for descriptions.
  what: string;
  content: TSchema;
  patch: TSchema;
  draft: TSchema;
  page: TSchema;
  // What the kind's issue route answers besides the platform's errors.
  issueErrors: readonly DeclaredError[];
  // The status of an issue's answer: the kind's issue route's.
  issueStatus: 200 | 202;
};

const operation = (options: DraftRouteOptions, name: string) =>
  `${options.resource}.drafts.${name}` as Operation;

const registerDraftRoutes: FastifyPluginAsyncTypebox<DraftRouteOptions> = async (app, options) => {
  const { drafts, resource, noun, what } = options;
  const base = `/${resource}/drafts`;
  const one = `${base}/${DRAFT_ID_PARAMETER}`;
  app.post(base, {
    config: { operation: operation(options, 'create') },
    schema: {
      operationId: `create${noun}Draft`, tags: TAGS, summary: `Save a ${what} draft`,
      description: `Saves the body of a ${what} issuance to issue later. Every field may be ` +
        'left out, but what is there must have the type and size issuance requires. ' +
        '`Supplier-Key` may be given now or later; one that names no issuer of this account ' +
        'and environment is 404. The answer lists in `issueProblems` what issuance would ' +
        'refuse now. Free.',
      headers: DraftHeaders, body: options.content,
      response: { 201: options.draft,
        ...bodyErrors(INPUT_CHECKED_AFTER_COUNTING, 'NOT_FOUND') },
    },
  }, async (request, reply) => reply.code(201).send(await drafts.create({
    caller: requestCaller(request), supplierKey: request.headers['supplier-key'],
    body: request.body })));

  app.get(base, {
    config: { operation: operation(options, 'list') },
    schema: {
      operationId: `list${noun}Drafts`, tags: TAGS, summary: `List ${what} drafts`,
      description: `The ${what} drafts of this account and environment in the order they ` +
        'were made, whoever made them, filtered by status, paged with an opaque cursor. ' +
        '`issueProblems` is null here: read a draft to learn them.',
      querystring: DraftListQuery,
      response: { 200: options.page, ...inputErrors(INPUT_CHECKED_AFTER_COUNTING) },
    },
  }, async (request) => {
    const { status, limit, cursor } = request.query;
    return withHasMore(await drafts.list({ scope: requestScope(request), limit, cursor,
      statuses: status === undefined ? undefined : [status].flat() }));
  });

  app.get(one, {
    config: { operation: operation(options, 'get') },
    schema: {
      operationId: `get${noun}Draft`, tags: TAGS, summary: `Get a ${what} draft`,
      description: 'The draft, with what issuance would refuse of it now (`issueProblems`, ' +
        'checked as issue checks, with nothing kept or charged).',
      params: DraftIdParams,
      response: { 200: options.draft, ...inputErrors('NOT_FOUND') },
    },
  }, async (request) => drafts.get({ caller: requestCaller(request), ...request.params }));

  app.patch(one, {
    config: { operation: operation(options, 'update') },
    schema: {
      operationId: `update${noun}Draft`, tags: TAGS, summary: `Change a ${what} draft`,
      description: 'Changes the body by a JSON merge patch (RFC 7396: objects merge field by ' +
        'field, arrays replace, null removes a field) and the `Supplier-Key` when given. Only ' +
        'a DRAFT changes: a SUBMITTED or ISSUED one is 409 DRAFT_NOT_EDITABLE. Free.',
      headers: DraftHeaders, params: DraftIdParams, body: options.patch,
      response: { 200: options.draft, ...bodyErrors(INPUT_CHECKED_AFTER_COUNTING, 'NOT_FOUND',
        'DRAFT_NOT_EDITABLE', 'DRAFT_CHANGED') },
    },
  }, async (request) => drafts.update({ caller: requestCaller(request),
    draftId: request.params.draftId, patch: request.body,
    supplierKey: request.headers['supplier-key'] }));
};

// The operations without a body, with the parser that lets an empty one through.
const registerBodylessRoutes: FastifyPluginAsyncTypebox<DraftRouteOptions> = async (app,
  options) => {
  acceptEmptyJsonBodies(app);
  const { drafts, resource, noun, what } = options;
  const one = `/${resource}/drafts/${DRAFT_ID_PARAMETER}`;

  app.delete(one, {
    config: { operation: operation(options, 'delete'), body: 'none' },
    schema: {
      operationId: `delete${noun}Draft`, tags: TAGS, summary: `Delete a ${what} draft`,
      description: 'Deletes a DRAFT or SUBMITTED draft; an ISSUED one stays (409 ' +
        'DRAFT_NOT_EDITABLE) so that its issue answers the same when repeated. Free.',
      params: DraftIdParams,
      response: { 204: Type.Null({ description: 'Deleted.' }),
        ...bodyErrors('NOT_FOUND', 'DRAFT_NOT_EDITABLE') },
    },
  }, async (request, reply) => {
    await drafts.remove({ scope: requestScope(request), ...request.params });
    return reply.code(204).send(null);
  });

  app.post(`${one}::issue`, {
    config: { operation: operation(options, 'issue'), body: 'none' },
    schema: {
      operationId: `issue${noun}Draft`, tags: TAGS, summary: `Issue a ${what} draft`,
      description: `Issues the draft as POST /v1/${resource}/issue would issue its body now, ` +
        'with every rule of issuance at this moment (and its price, refunded as issuance ' +
        'refunds it). `Service-Client-Reference-Id` is required: the same value from the same ' +
        'key answers the issued draft again without issuing twice; a draft is issued once, so ' +
        'any other issue of an issued draft is 409 DRAFT_ALREADY_ISSUED. When the account ' +
        'requires approval, an API key cannot issue a draft: it is submitted (status ' +
        'SUBMITTED, a _DRAFT_SUBMITTED webhook) and the answer is 403 ' +
        'DRAFT_APPROVAL_REQUIRED; an approver issues it from the dashboard. Body: none.',
      headers: DraftIssueHeaders, params: DraftIdParams,
      response: { [options.issueStatus]: options.draft,
        ...operationErrors(...options.issueErrors, 'DRAFT_APPROVAL_REQUIRED',
          'DRAFT_ALREADY_ISSUED', 'DRAFT_CHANGED') },
    },
  }, async (request, reply) => reply.code(options.issueStatus).send(await drafts.issue({
    caller: requestCaller(request), draftId: request.params.draftId,
    referenceId: request.headers['service-client-reference-id'] })));
};

export const draftRoutes: FastifyPluginAsyncTypebox<DraftRouteOptions> = async (app, options) => {
  await app.register(registerDraftRoutes, options);
  await app.register(registerBodylessRoutes, options);
};
