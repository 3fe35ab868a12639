// The rules of docs/api-conventions.md, checked over the committed openapi/openapi.json, so a new
// operation that breaks one fails here. Operations older than a rule are named in the lists of
// exceptions below: the contract fixes their shape, and v1 is never broken. The lists only
// shrink: an exception that no longer applies fails too, so it is removed when it is fixed.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

type Schema = {
  $ref?: string; type?: string | string[]; format?: string; enum?: unknown[];
  'x-extensible-enum'?: unknown[]; properties?: Record<string, Schema>; required?: string[];
  items?: Schema; anyOf?: Schema[]; oneOf?: Schema[]; allOf?: Schema[]; maximum?: number;
  minimum?: number; maxItems?: number; description?: string;
};
type Parameter = { name: string; in: string; schema?: Schema; required?: boolean };
type Operation = { operationId: string; summary?: string; tags?: string[];
  parameters?: Parameter[];
  responses: Record<string, { content?: Record<string, { schema: Schema }> }> };
type Document = { paths: Record<string, Record<string, Operation>>;
  components: { schemas: Record<string, Schema> } };

const document = JSON.parse(readFileSync(path.join(ROOT, 'openapi/openapi.json'), 'utf8')) as
  Document;

const deref = (schema: Schema | undefined): Schema | undefined => (schema?.$ref === undefined
  ? schema : document.components.schemas[schema.$ref.split('/').pop()!]);

type Entry = { method: string; path: string; operation: Operation };
const OPERATIONS: Entry[] = Object.entries(document.paths).flatMap(([route, methods]) =>
  Object.entries(methods).map(([method, operation]) => ({ method, path: route, operation })));
const V1 = OPERATIONS.filter((entry) => entry.path.startsWith('/v1/'));

const okBody = (operation: Operation) =>
  deref(operation.responses['200']?.content?.['application/json']?.schema);

// Every (name, schema) of the success responses, nested objects, arrays and unions included.
function successFields(operation: Operation): Array<[string, Schema]> {
  const fields: Array<[string, Schema]> = [];
  // A union's members are read for their own fields; the field is the union itself.
  const walk = (raw: Schema | undefined, name: string, isField = true) => {
    const schema = deref(raw);
    if (schema === undefined) return;
    if (isField) fields.push([name, schema]);
    for (const [key, value] of Object.entries(schema.properties ?? {})) walk(value, key);
    for (const union of [schema.anyOf, schema.oneOf, schema.allOf]) {
      for (const member of union ?? []) walk(member, name, false);
    }
    if (schema.items !== undefined) walk(schema.items, name);
  };
  for (const [status, response] of Object.entries(operation.responses)) {
    if (!status.startsWith('2')) continue;
    walk(response.content?.['application/json']?.schema, '');
  }
  return fields;
}

const isList = ({ method, operation }: Entry) =>
  method === 'get' && /^(list|search)[A-Z]/.test(operation.operationId);
const arrayProperties = (schema: Schema) => Object.entries(schema.properties ?? {})
  .filter(([, value]) => deref(value)?.type === 'array');
const UPPER_SNAKE = /^[A-Z][A-Z0-9]*(_[A-Z0-9]+)*$/;
const query = (operation: Operation, name: string) =>
  operation.parameters?.find((parameter) => parameter.in === 'query' && parameter.name === name);

// The contract's envelopes, older than the rule that names the array after the resource.
const LEGACY_ENVELOPES: Record<string, string> = {
  searchBusinessProfiles: 'results', listWebhookEndpoints: 'results',
  listWebhookDeliveries: 'results', listWebhookEvents: 'results', listConnections: 'items',
  listRevenueExpenseTaxInvoices: 'items', listBankAccounts: 'items',
  listBankTransactions: 'items',
};
// The feeds' pages, larger than the rule's 100, as the contract gives them.
const LEGACY_PAGE_LIMITS: Record<string, number> = { listRevenueExpenseTaxInvoices: 1_000,
  listBankTransactions: 1_000 };
// The contract's action paths written with a slash.
const LEGACY_SLASH_ACTIONS = new Set([
  'POST /v1/taxInvoices/issue', 'POST /v1/taxInvoices/{issuanceKey}/cancel',
  'POST /v1/taxInvoices/{issuanceKey}/amend/termination',
  'POST /v1/taxInvoices/{issuanceKey}/amend/entryCorrection',
  'POST /v1/taxInvoices/{issuanceKey}/amend/doubleIssuance',
  'POST /v1/taxInvoices/{issuanceKey}/amend/changeSupplyCost',
  'POST /v1/taxInvoices/{issuanceKey}/amend/returnedGoods',
  'POST /v1/taxInvoices/{issuanceKey}/amend/localLetterOfCredit',
  'POST /v1/taxInvoices/issueRequest', 'POST /v1/taxInvoices/{issuanceKey}/issueRequest/approve',
  'POST /v1/taxInvoices/{issuanceKey}/issueRequest/refuse',
  'PUT /v1/taxInvoices/{issuanceKey}/issueRequest/cancel', 'POST /v1/cashReceipts/issue',
  'POST /v1/cashReceipts/{issuanceKey}/cancel', 'POST /v1/documents/issue',
]);
// Lowercase statuses of webhook deliveries, as the contract gives them.
const LEGACY_LOWERCASE_STATUSES = new Set(['listWebhookDeliveries', 'resendWebhookEvent',
  'sendWebhookTestEvent']);
// Operations whose lifecycle field was named `state`; `status` is beside it now, and `state` is
// deprecated.
const LEGACY_STATE_FIELDS = new Set(['listConnections', 'getRevenueExpenseCollection',
  'listBankAccounts', 'getBankAccountSync']);
// Operations that answer closed enums, older than open enums.
const LEGACY_CLOSED_ENUMS = new Set(['searchBusinessProfiles', 'retrieveBusinessProfile',
  'bulkInquireBusinessRegistrationStatuses', 'retrieveBusinessRegistrationStatus',
  'verifyBusinessRegistrationCertificate', 'createWebhookEndpoint', 'listWebhookEndpoints',
  'retrieveWebhookEndpoint', 'updateWebhookEndpoint', 'rotateWebhookEndpointSecret',
  'listWebhookDeliveries', 'resendWebhookEvent', 'sendWebhookTestEvent',
  'getTaxInvoiceRequestStatus', 'listTaxInvoices', 'getTaxInvoice',
  'getCashReceiptRequestStatus', 'listCashReceipts', 'getCashReceipt', 'listDocuments',
  'getDocument']);
// Date names older than the naming rule (and X.509's own).
const LEGACY_DATE_NAMES = new Set(['from', 'to', 'issueDeadline', 'lateIssuanceLimit',
  'notBefore', 'notAfter']);
// Verbs that end a path written as an action (`:verb`).
const ACTION_VERBS =
  /^(issue|cancel|amend|approve|refuse|resend|send|sync|collect|verify|inquire|rotate)([A-Z]\w*)?$/;

function violations(check: (entry: Entry) => string[]): string[] {
  return OPERATIONS.flatMap(check);
}

describe('docs/api-conventions.md, over openapi/openapi.json', () => {
  it('finds the lists it checks', () => {
    expect(V1.filter(isList).length).toBeGreaterThanOrEqual(13);
  });

  it('gives every list one array, nextCursor and hasMore', () => {
    expect(violations((entry) => {
      if (!isList(entry)) return [];
      const body = okBody(entry.operation);
      const id = entry.operation.operationId;
      if (body === undefined) return [`${id}: no 200 JSON body`];
      const problems: string[] = [];
      if (arrayProperties(body).length !== 1) problems.push(`${id}: not exactly one array`);
      const nextCursor = deref(body.properties?.nextCursor);
      const cursorTypes = [nextCursor?.type, ...(nextCursor?.anyOf ?? []).map((s) => s.type)];
      // A list that is one page by itself (maxItems) answers a null cursor.
      if (!cursorTypes.some((type) => type === 'string' || type === 'null')) {
        problems.push(`${id}: nextCursor is not a string`);
      }
      if (deref(body.properties?.hasMore)?.type !== 'boolean') {
        problems.push(`${id}: no boolean hasMore`);
      }
      for (const field of ['nextCursor', 'hasMore']) {
        if (!(body.required ?? []).includes(field)) problems.push(`${id}: ${field} optional`);
      }
      return problems;
    })).toEqual([]);
  });

  it('bounds every list: limit of at most 100 and a cursor, or a bounded array', () => {
    expect(violations((entry) => {
      if (!isList(entry)) return [];
      const { operation } = entry;
      const [, array] = arrayProperties(okBody(operation) ?? {})[0] ?? [];
      if ((deref(array)?.maxItems ?? Infinity) <= 100) return [];
      const limit = query(operation, 'limit')?.schema;
      const most = LEGACY_PAGE_LIMITS[operation.operationId] ?? 100;
      const bounded = limit?.type === 'integer' && limit.minimum === 1 &&
        limit.maximum !== undefined && limit.maximum <= most;
      return [
        ...(bounded ? [] : [`${operation.operationId}: no limit of 1 to at most 100`]),
        ...(query(operation, 'cursor') ? [] : [`${operation.operationId}: no cursor`]),
      ];
    })).toEqual([]);
  });

  it('names a list\'s array after its resource and states its order', () => {
    expect(violations((entry) => {
      if (!isList(entry)) return [];
      const id = entry.operation.operationId;
      const [name, array] = arrayProperties(okBody(entry.operation) ?? {})[0] ?? [];
      const problems: string[] = [];
      const legacy = LEGACY_ENVELOPES[id];
      if (legacy !== undefined ? name !== legacy : ['results', 'items', 'data'].includes(name!)) {
        problems.push(`${id}: array named ${name}`);
      }
      const order = `${deref(array)?.description ?? ''} ${okBody(entry.operation)?.description}`;
      if (!/first|order/i.test(order)) problems.push(`${id}: order not stated`);
      return problems;
    })).toEqual([]);
    // An exception that no longer applies is removed from the list.
    for (const [id, name] of Object.entries(LEGACY_ENVELOPES)) {
      const entry = V1.find((candidate) => candidate.operation.operationId === id);
      expect(entry && arrayProperties(okBody(entry.operation) ?? {})[0]?.[0], id).toBe(name);
    }
  });

  it('writes actions as :verb', () => {
    const slashActions = V1.filter(({ method, path: route }) => {
      if (method !== 'post' && method !== 'put') return false;
      return route.split('/').some((segment) => ACTION_VERBS.test(segment));
    }).map(({ method, path: route }) => `${method.toUpperCase()} ${route}`);
    expect(slashActions.filter((action) => !LEGACY_SLASH_ACTIONS.has(action))).toEqual([]);
    expect([...LEGACY_SLASH_ACTIONS].filter((action) => !slashActions.includes(action)))
      .toEqual([]);
  });

  it('spells statuses, kinds and types in UPPER_SNAKE_CASE, in a field named status', () => {
    const lowercase = new Set<string>();
    const stateFields = new Set<string>();
    expect(V1.flatMap(({ operation }) => {
      const id = operation.operationId;
      const values = [
        ...successFields(operation).filter(([name]) =>
          ['status', 'state', 'kind', 'type', 'result', 'outcome'].includes(name)),
        ...(operation.parameters ?? []).filter((parameter) => parameter.in === 'query' &&
          ['status', 'kind', 'type'].includes(parameter.name))
          .map((parameter) => [parameter.name, parameter.schema ?? {}] as [string, Schema]),
      ];
      const fields = successFields(operation);
      if (fields.some(([name]) => name === 'state')) stateFields.add(id);
      // An older `state` is deprecated, with `status` beside it.
      const stale = fields.filter(([name, schema]) => name === 'state' &&
        (schema as { deprecated?: boolean }).deprecated !== true);
      const hasStatus = fields.some(([name]) => name === 'status');
      if (stale.length > 0 || (stateFields.has(id) && !hasStatus)) {
        return [`${id}.state: not deprecated beside a status`];
      }
      return values.flatMap(([name, schema]) => {
        const known = [...(schema.enum ?? []), ...(schema['x-extensible-enum'] ?? []),
          ...[schema.items, ...(schema.anyOf ?? [])].flatMap((member) =>
            deref(member)?.enum ?? [])];
        const bad = known.filter((value) => typeof value === 'string' && !UPPER_SNAKE.test(value));
        if (bad.length > 0) lowercase.add(id);
        return bad.length === 0 || LEGACY_LOWERCASE_STATUSES.has(id) ? []
          : [`${id}.${name}: ${bad.join(', ')}`];
      });
    })).toEqual([]);
    expect([...stateFields].filter((id) => !LEGACY_STATE_FIELDS.has(id))).toEqual([]);
    expect([...LEGACY_STATE_FIELDS].filter((id) => !stateFields.has(id))).toEqual([]);
    expect([...LEGACY_LOWERCASE_STATUSES].filter((id) => !lowercase.has(id))).toEqual([]);
  });

  it('answers values that will grow as open enums', () => {
    const closed = new Set(V1.filter(({ operation }) => successFields(operation)
      .some(([, schema]) => (schema.enum?.length ?? 0) > 1))
      .map(({ operation }) => operation.operationId));
    expect([...closed].filter((id) => !LEGACY_CLOSED_ENUMS.has(id))).toEqual([]);
    expect([...LEGACY_CLOSED_ENUMS].filter((id) => !closed.has(id))).toEqual([]);
  });

  it('names dates …Date, …On, …DateFrom or …DateTo, and instants …At', () => {
    expect(V1.flatMap(({ operation }) => {
      const named: Array<[string, Schema]> = [...successFields(operation),
        ...(operation.parameters ?? []).map((parameter) =>
          [parameter.name, parameter.schema ?? {}] as [string, Schema])];
      return named.flatMap(([name, schema]) => {
        const formats = [schema.format, ...(schema.anyOf ?? []).map((member) => member.format)];
        if (LEGACY_DATE_NAMES.has(name)) return [];
        if (formats.includes('date') && !/(^date|Date|On|DateFrom|DateTo)$/.test(name)) {
          return [`${operation.operationId}.${name}: a date`];
        }
        if (formats.includes('date-time') && !/At$/.test(name)) {
          return [`${operation.operationId}.${name}: an instant`];
        }
        return [];
      });
    })).toEqual([]);
  });

  it('names path parameters after what they hold, and operations lowerCamel, verb first', () => {
    const ids = OPERATIONS.map(({ operation }) => operation.operationId);
    expect(new Set(ids).size).toBe(ids.length);
    expect(ids.filter((id) => !/^[a-z]+[A-Z][A-Za-z]*$/.test(id))).toEqual([]);
    const names = new Set(V1.flatMap(({ path: route }) =>
      [...route.matchAll(/\{([^}]+)\}/g)].map((match) => match[1]!)));
    expect([...names].filter((name) =>
      !/(Id|Key)$/.test(name) && name !== 'businessRegistrationNumber')).toEqual([]);
  });

  it('declares error codes in UPPER_SNAKE_CASE, in the error shape', () => {
    expect(V1.flatMap(({ operation }) => Object.entries(operation.responses)
      .filter(([status]) => Number(status) >= 400)
      .flatMap(([status, response]) => {
        const schema = deref(response.content?.['application/json']?.schema);
        if (schema === undefined) {
          return status === '401' ? [] : [`${operation.operationId} ${status}`];
        }
        const keys = Object.keys(schema.properties ?? {}).sort();
        const codes = deref(schema.properties?.code)?.enum ?? [];
        return [
          ...(keys.join() === 'code,message,traceId' ? [] : [`${operation.operationId} ${status}`]),
          ...codes.filter((code) => !UPPER_SNAKE.test(String(code)))
            .map((code) => `${operation.operationId} ${status} ${String(code)}`),
        ];
      }))).toEqual([]);
  });

  it('tags every operation with a declared tag', () => {
    const declared = new Set((JSON.parse(readFileSync(path.join(ROOT, 'openapi/openapi.json'),
      'utf8')) as { tags: Array<{ name: string }> }).tags.map((tag) => tag.name));
    expect(OPERATIONS.filter(({ operation }) => operation.tags?.length !== 1 ||
      !declared.has(operation.tags[0]!)).map(({ operation }) => operation.operationId))
      .toEqual([]);
  });
});
