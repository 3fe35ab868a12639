import multipart from '@fastify/multipart';
import { Type, type FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import {
  bodyErrors,
  errorResponses,
  inputErrors,
  INPUT_CHECKED_AFTER_COUNTING,
  PLATFORM_ERRORS,
} from '../../platform/error-responses.ts';
import { multipartOptions, readFilePart } from '../../platform/multipart.ts';
import { withHasMore } from '../../platform/paging.ts';
import { requestScope } from '../../platform/scope.ts';
import { IMPORT_FILE_BYTES_MAX } from './import.ts';
import {
  Counterparty,
  CounterpartyChanges,
  CounterpartyImport,
  CounterpartyInput,
  CounterpartyPage,
  CounterpartyParams,
  ImportParams,
  ImportUploadBody,
  ListQuery,
} from './schemas.ts';
import type { CounterpartiesService } from './service.ts';

// The counterparty book's API (docs/counterparties.md): HTTP only. Every counterparty and
// import belongs to the key's account and environment; another's id is 404.

const TAGS = ['Counterparties'];
// Loose on purpose, so that `:refreshStatus` can follow it and any other segment reaches the
// schema, which answers 400 naming the parameter.
const ID = ':counterpartyId(^[^:/]+)';
const IMPORT_ID = ':importId(^[^:/]+)';

type Options = { counterparties: CounterpartiesService };

export const registerCounterpartyRoutes: FastifyPluginAsyncTypebox<Options> = async (
  app,
  { counterparties },
) => {
  await app.register(registerBookRoutes, { counterparties });
  await app.register(registerOneRoutes, { counterparties });
  await app.register(registerChangeRoutes, { counterparties });
  await app.register(registerImportRoutes, { counterparties });
};

const registerBookRoutes: FastifyPluginAsyncTypebox<Options> = async (app,
  { counterparties }) => {
  app.post('/counterparties', {
    config: { operation: 'counterparties.create' },
    schema: {
      operationId: 'createCounterparty', tags: TAGS, summary: 'Add a counterparty',
      description: 'Adds a business to the counterparty book. Its fields are a tax invoice ' +
        'recipient\'s, checked the same way; the business registration number\'s checksum ' +
        'is checked. A number (with its sub-place number) is in the book once. Free.',
      body: CounterpartyInput,
      response: { 201: Counterparty, ...bodyErrors('INVALID_BUSINESS_REGISTRATION_NUMBER',
        'COUNTERPARTY_ALREADY_EXISTS') },
    },
  }, async (request, reply) => reply.code(201).send(await counterparties.create({
    scope: requestScope(request), counterparty: request.body })));

  app.get('/counterparties', {
    config: { operation: 'counterparties.list' },
    schema: {
      operationId: 'listCounterparties', tags: TAGS, summary: 'List and search counterparties',
      description: 'Lists the book, newest first, filtered by part of the name, the first ' +
        'digits of the business registration number or whether it is closed. Free.',
      querystring: ListQuery,
      response: { 200: CounterpartyPage, ...inputErrors(INPUT_CHECKED_AFTER_COUNTING) },
    },
  }, async (request) => withHasMore(await counterparties.list({ scope: requestScope(request),
    ...request.query })));

};

const registerOneRoutes: FastifyPluginAsyncTypebox<Options> = async (app,
  { counterparties }) => {
  app.get(`/counterparties/${ID}`, {
    config: { operation: 'counterparties.get' },
    schema: {
      operationId: 'getCounterparty', tags: TAGS, summary: 'Retrieve a counterparty',
      description: 'One counterparty of the book, with its registration status as last ' +
        'checked. Free.',
      params: CounterpartyParams,
      response: { 200: Counterparty, ...inputErrors('NOT_FOUND') },
    },
  }, async (request) => counterparties.get({ scope: requestScope(request),
    counterpartyId: request.params.counterpartyId }));

  app.patch(`/counterparties/${ID}`, {
    config: { operation: 'counterparties.update' },
    schema: {
      operationId: 'updateCounterparty', tags: TAGS, summary: 'Change a counterparty',
      description: 'Changes the fields given; the others keep their values and null clears ' +
        'an optional one. A new business registration number clears the registration ' +
        'status. Free.',
      params: CounterpartyParams,
      body: CounterpartyChanges,
      response: { 200: Counterparty, ...bodyErrors('NOT_FOUND',
        'INVALID_BUSINESS_REGISTRATION_NUMBER', 'COUNTERPARTY_ALREADY_EXISTS') },
    },
  }, async (request) => counterparties.update({ scope: requestScope(request),
    counterpartyId: request.params.counterpartyId, changes: request.body }));

};

const registerChangeRoutes: FastifyPluginAsyncTypebox<Options> = async (app,
  { counterparties }) => {
  app.delete(`/counterparties/${ID}`, {
    config: { operation: 'counterparties.delete' },
    schema: {
      operationId: 'deleteCounterparty', tags: TAGS, summary: 'Delete a counterparty',
      description: 'Removes the counterparty from the book. Invoices issued to it keep the ' +
        'fields they were issued with. Free.',
      params: CounterpartyParams,
      response: { 204: Type.Null({ description: 'Deleted.' }), ...bodyErrors('NOT_FOUND') },
    },
  }, async (request, reply) => {
    await counterparties.remove({ scope: requestScope(request),
      counterpartyId: request.params.counterpartyId });
    return reply.code(204).send(null);
  });

  app.post(`/counterparties/${ID}::refreshStatus`, {
    config: { operation: 'counterparties.refreshStatus', body: 'none' },
    schema: {
      operationId: 'refreshCounterpartyStatus', tags: TAGS,
      summary: 'Check a counterparty\'s registration status again',
      description: 'Asks the tax authority for the business\'s registration status now, ' +
        'through the registration status lookup, and records it on the counterparty (and on ' +
        'every counterparty of the book with the same number). Charged as that lookup: the ' +
        '`businesses.registrationStatus.inquire` price, 10 points; nothing when the authority ' +
        'does not answer (503). A CLOSED answer flags the counterparty. Body: none.',
      params: CounterpartyParams,
      response: { 200: Counterparty, ...bodyErrors('NOT_FOUND', 'PAYMENT_REQUIRED',
        'AVAILABLE_POINTS_INSUFFICIENT', 'LOOKUP_UNAVAILABLE') },
    },
  }, async (request) => counterparties.refreshStatus({ scope: requestScope(request),
    counterpartyId: request.params.counterpartyId }));
};

const registerImportRoutes: FastifyPluginAsyncTypebox<Options> = async (app,
  { counterparties }) => {
  await app.register(multipart, multipartOptions({ fileSize: IMPORT_FILE_BYTES_MAX, files: 1,
    fields: 0, parts: 2, headerPairs: 20 }));

  app.post('/counterpartyImports', {
    config: { operation: 'counterparties.imports.create' },
    schema: {
      operationId: 'createCounterpartyImport', tags: TAGS,
      summary: 'Upload a file of counterparties for a preview',
      description: 'Reads a CSV or xlsx file in the template\'s columns (docs/counterparties.md ' +
        '§ Import) and checks every row as POST /v1/counterparties would, and against the ' +
        'book and the file\'s earlier rows. Nothing is added yet: the answer lists each row ' +
        'with its errors by column; commit the import to add the valid rows. A file that ' +
        'is not a table, lacks a required column or has more than 1,000 rows is 400 ' +
        'INVALID_FILE; one over 1 MiB is 413. Free.',
      consumes: ['multipart/form-data'],
      body: ImportUploadBody,
      response: { 201: CounterpartyImport, ...errorResponses(...PLATFORM_ERRORS,
        { code: 'INVALID_REQUEST', counted: 'sometimes' },
        { code: 'PAYLOAD_TOO_LARGE', counted: 'sometimes' },
        { code: 'UNSUPPORTED_MEDIA_TYPE', counted: 'sometimes' }, 'INVALID_FILE') },
    },
    // The body is a multipart stream read by the handler; the schema above documents it.
    validatorCompiler: () => () => true,
  }, async (request, reply) => {
    const { file, fileName } = await readFilePart(request, 'counterparty file');
    return reply.code(201).send(await counterparties.previewImport({
      scope: requestScope(request), file, fileName }));
  });

  app.get(`/counterpartyImports/${IMPORT_ID}`, {
    config: { operation: 'counterparties.imports.get' },
    schema: {
      operationId: 'getCounterpartyImport', tags: TAGS, summary: 'Retrieve a counterparty import',
      description: 'The import\'s rows with their errors, and what its commit added. Free.',
      params: ImportParams,
      response: { 200: CounterpartyImport, ...inputErrors('NOT_FOUND') },
    },
  }, async (request) => counterparties.getImport({ scope: requestScope(request),
    importId: request.params.importId }));

  app.post(`/counterpartyImports/${IMPORT_ID}::commit`, {
    config: { operation: 'counterparties.imports.commit', body: 'none' },
    schema: {
      operationId: 'commitCounterpartyImport', tags: TAGS,
      summary: 'Add the valid rows of an import',
      description: 'Adds every row of the import without errors to the book, in one ' +
        'transaction, once: committing again (a retry) answers what the first commit did and ' +
        'adds nothing. A row whose number joined the book since the preview is skipped ' +
        '(`createdCount` says how many were added). An import without a valid row is 409 ' +
        'COUNTERPARTY_IMPORT_EMPTY. Body: none. Free.',
      params: ImportParams,
      response: { 200: CounterpartyImport, ...bodyErrors('NOT_FOUND',
        'COUNTERPARTY_IMPORT_EMPTY') },
    },
  }, async (request) => counterparties.commitImport({ scope: requestScope(request),
    importId: request.params.importId }));
};
