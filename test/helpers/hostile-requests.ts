import { fillPath, sampleValue, type JsonSchema, type Operation } from './openapi-operations.ts';

// Hostile variations of one operation's request, derived from its OpenAPI description: boundary
// values, wrong types, missing and extra fields, huge strings, deep nesting, invalid UTF-8,
// wrong content types and path segments carrying encoded slashes, dots and SQL or HTML. Each is
// a plain request description that any HTTP client (fastify.inject here) can send.

export type HostileRequest = {
  label: string;
  method: string;
  url: string;
  headers: Record<string, string>;
  payload?: string | Buffer;
};

type Valid = { path: Record<string, string>; query: Record<string, string>; body: unknown };

// Bigger than any field's limit, well below the 1 MiB body limit.
const HUGE_STRING = 'Ω'.repeat(100_000);
// Above the default body limit of 1 MiB (BODY_LIMIT_BYTES).
const OVERSIZED_BODY_BYTES = 1_100_000;
// Deep enough to overflow a naive recursive walker, small enough to stay under the body limit.
const NESTING_DEPTH = 20_000;

const FRAGMENTS = [
  "' OR '1'='1", "'; DROP TABLE accounts; --", '<script>alert(1)</script>', '"><img src=x>',
  '../../etc/passwd', '${7*7}', '\u0000', '한글', '😀', '\uD800',
];

// Raw path segments, already percent-encoded as they would travel on the wire.
export const HOSTILE_SEGMENTS = [
  '%2F', 'a%2Fb', '..', '%2e%2e', '.', '%2E', '..%2F..%2Fetc%2Fpasswd', '%5C', 'a%5Cb',
  "'%20OR%201%3D1--", '%27%3B%20DROP%20TABLE%20accounts%3B--', '%3Cscript%3E%3C%2Fscript%3E',
  '%00', '%FF%FE', '%C0%AF', '%E0%A4%A', '%', '%zz', 'x'.repeat(200), 'x'.repeat(201),
  '%ED%95%9C%EA%B8%80', '1e999', '-1', '0', ' ', '%20', '%0D%0ASet-Cookie:x=1', 'null',
  '__proto__', 'constructor',
];

// Dates at and past the edges of the calendar and of what a date field can hold: the first and
// last days there are, days that do not exist, and forms that only look like a date.
const DATE_EDGES = [
  '0000-01-01', '0001-01-01', '1899-12-31', '1970-01-01', '9999-11-30', '9999-12-31',
  '2023-02-29', '2024-02-29', '2100-02-29', '2024-04-31', '2024-13-01', '2024-00-10',
  '2024-01-00', '2024-01-32', '+275760-09-13', '-000001-01-01', '2024-1-1', '20240101',
  '2024-01-01T00:00:00Z', '2024-01-01 ', '２０２４-01-01',
];

const WRONG_TYPES: unknown[] = [null, 0, -1, 1.5, 'text', true, [], {}, [null], { a: 1 }];

const JSON_TYPE = 'application/json';

function typeOf(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'array';
  return typeof value;
}

function schemaType(schema: JsonSchema): string | undefined {
  return Array.isArray(schema.type) ? schema.type[0] : schema.type;
}

// Values at and just beyond the schema's bounds, plus values no schema of this type accepts.
// Arrays repeat the given value's first item, so that a case differs from a good request only in
// its length.
function boundaryValues(schema: JsonSchema, value: unknown): unknown[] {
  const values: unknown[] = [];
  const type = schemaType(schema);
  if (type === 'string' || (type === undefined && schema.maxLength !== undefined)) {
    values.push('', ' ', HUGE_STRING, ...FRAGMENTS);
    if (schema.maxLength !== undefined) {
      values.push('9'.repeat(schema.maxLength), '9'.repeat(schema.maxLength + 1));
    }
    if (schema.format === 'date') values.push(...DATE_EDGES);
  }
  if (type === 'integer' || type === 'number') {
    values.push(-1, 0, 1.5, 1e308, -1e308, Number.MAX_SAFE_INTEGER + 2, '1');
    if (schema.minimum !== undefined) values.push(schema.minimum - 1, schema.minimum);
    if (schema.maximum !== undefined) values.push(schema.maximum, schema.maximum + 1);
  }
  if (type === 'array' && schema.items) {
    const item = Array.isArray(value) && value.length > 0 ? value[0] : sampleValue(schema.items);
    values.push([], Array.from({ length: (schema.maxItems ?? 100) + 1 }, () => item));
    if (schema.maxItems !== undefined) {
      values.push(Array.from({ length: schema.maxItems }, () => item));
    }
  }
  if (schema.enum) values.push('NOT_A_VALUE', String(schema.enum[0]).toLowerCase());
  return values;
}

// One changed body, and what was changed.
type FieldMutation = { label: string; body: unknown };

// The record with an own "__proto__" member first, as JSON.parse makes it from raw text.
function withProtoMember(record: Record<string, unknown>): unknown {
  const members = JSON.stringify(record).slice(1, -1);
  return JSON.parse(`{"__proto__":{"polluted":true}${members ? `,${members}` : ''}}`);
}

function mutateFields(schema: JsonSchema, value: unknown, at: string): FieldMutation[] {
  const mutations: FieldMutation[] = [];
  for (const wrong of WRONG_TYPES) {
    if (typeOf(wrong) !== typeOf(value)) {
      mutations.push({ label: `${at} = ${JSON.stringify(wrong)}`, body: wrong });
    }
  }
  for (const boundary of boundaryValues(schema, value)) {
    const shown = JSON.stringify(boundary)?.slice(0, 40);
    mutations.push({ label: `${at} = ${shown}`, body: boundary });
  }
  if (schemaType(schema) === 'object' && typeOf(value) === 'object') {
    const record = value as Record<string, unknown>;
    for (const name of schema.required ?? []) {
      const rest = { ...record };
      delete rest[name];
      mutations.push({ label: `${at} without ${name}`, body: rest });
    }
    mutations.push({ label: `${at} with an extra field`, body: { ...record, extra: 'x' } });
    mutations.push({ label: `${at} with __proto__`, body: withProtoMember(record) });
    for (const [name, propertySchema] of Object.entries(schema.properties ?? {})) {
      const current = record[name] ?? sampleValue(propertySchema);
      for (const inner of mutateFields(propertySchema, current, `${at}.${name}`)) {
        mutations.push({ label: inner.label, body: { ...record, [name]: inner.body } });
      }
    }
  }
  if (schemaType(schema) === 'array' && Array.isArray(value) && value.length > 0 && schema.items) {
    for (const inner of mutateFields(schema.items, value[0], `${at}.0`)) {
      mutations.push({ label: inner.label, body: [inner.body, ...value.slice(1)] });
    }
  }
  return mutations;
}

function queryString(query: Record<string, string>): string {
  const pairs = Object.entries(query).map(([name, value]) => `${name}=${value}`);
  return pairs.length > 0 ? `?${pairs.join('&')}` : '';
}

function deepJson(): string {
  return `${'{"a":'.repeat(NESTING_DEPTH)}1${'}'.repeat(NESTING_DEPTH)}`;
}

// Bodies no JSON schema accepts, sent raw: broken JSON, other JSON types, invalid UTF-8.
function rawBodies(): { label: string; payload: string | Buffer; type: string }[] {
  return [
    { label: 'empty body', payload: '', type: JSON_TYPE },
    { label: 'truncated JSON', payload: '{"a":', type: JSON_TYPE },
    { label: 'JSON null', payload: 'null', type: JSON_TYPE },
    { label: 'JSON array', payload: '[]', type: JSON_TYPE },
    { label: 'JSON string', payload: '"x"', type: JSON_TYPE },
    { label: 'JSON number', payload: '1e999', type: JSON_TYPE },
    { label: 'deeply nested objects', payload: deepJson(), type: JSON_TYPE },
    { label: 'deeply nested arrays',
      payload: `${'['.repeat(NESTING_DEPTH)}${']'.repeat(NESTING_DEPTH)}`, type: JSON_TYPE },
    { label: 'invalid UTF-8 in a string',
      payload: Buffer.concat([Buffer.from('{"x":"'), Buffer.from([0xff, 0xfe, 0xc0, 0xaf]),
        Buffer.from('"}')]), type: JSON_TYPE },
    { label: 'UTF-16 body', payload: Buffer.from('{"x":1}', 'utf16le'), type: JSON_TYPE },
    { label: 'byte order mark', payload: '\uFEFF{}', type: JSON_TYPE },
    { label: 'oversized body', payload: `"${'a'.repeat(OVERSIZED_BODY_BYTES)}"`, type: JSON_TYPE },
    { label: 'text/plain', payload: '{}', type: 'text/plain' },
    { label: 'form encoded', payload: 'a=1&b=2', type: 'application/x-www-form-urlencoded' },
    { label: 'multipart', payload: '--x\r\n\r\n--x--', type: 'multipart/form-data; boundary=x' },
    { label: 'XML', payload: '<a/>', type: 'application/xml' },
    { label: 'JSON in another charset', payload: '{}', type: 'application/json; charset=utf-16' },
    { label: 'near-JSON media type', payload: '{}', type: 'application/jsonx' },
    { label: 'no media type', payload: '{}', type: '' },
    { label: 'prototype pollution', payload: '{"constructor":{"prototype":{"x":1}}}',
      type: JSON_TYPE },
  ];
}

function withBody(headers: Record<string, string>, type: string): Record<string, string> {
  return type === '' ? { ...headers } : { ...headers, 'content-type': type };
}

function pathCases(operation: Operation, valid: Valid, base: Omit<HostileRequest, 'label'>) {
  const cases: HostileRequest[] = [];
  const query = queryString(valid.query);
  for (const parameter of operation.parameters.filter((p) => p.in === 'path')) {
    for (const segment of HOSTILE_SEGMENTS) {
      const url = fillPath(operation.path, { ...valid.path, [parameter.name]: segment }) + query;
      cases.push({ ...base, label: `path ${parameter.name} = ${segment.slice(0, 40)}`, url });
    }
  }
  return cases;
}

function queryCases(operation: Operation, valid: Valid, base: Omit<HostileRequest, 'label'>) {
  const cases: HostileRequest[] = [];
  const path = fillPath(operation.path, valid.path);
  const queryValues = [
    'abc', '', '0', '-1', '1.5', 'NaN', '1e309', '101', '%FF', '%00', '%3Cscript%3E',
    "'%20OR%201%3D1--", encodeURIComponent(HUGE_STRING.slice(0, 3_000)), 'a%2Fb', '..',
  ];
  for (const parameter of operation.parameters.filter((p) => p.in === 'query')) {
    const edges = parameter.schema.format === 'date' ? DATE_EDGES.map(encodeURIComponent) : [];
    for (const value of [...queryValues, ...edges]) {
      const query = queryString({ ...valid.query, [parameter.name]: value });
      cases.push({ ...base, label: `query ${parameter.name} = ${value.slice(0, 40)}`,
        url: path + query });
    }
    const sample = valid.query[parameter.name] ?? encodeURIComponent(
      String(sampleValue(parameter.schema)));
    const separator = Object.keys(valid.query).length > 0 ? '&' : '?';
    cases.push({ ...base, label: `query ${parameter.name} given twice`,
      url: `${path}${queryString(valid.query)}${separator}${parameter.name}=${sample}` });
  }
  cases.push({ ...base, label: 'an unknown query parameter',
    url: `${path}${queryString({ ...valid.query, unknown: '1' })}` });
  return cases;
}

function bodyCases(operation: Operation, valid: Valid, base: Omit<HostileRequest, 'label'>) {
  const cases: HostileRequest[] = [];
  const headers = base.headers;
  for (const raw of rawBodies()) {
    cases.push({ ...base, label: `body: ${raw.label}`, headers: withBody(headers, raw.type),
      payload: raw.payload });
  }
  if (operation.body === null) return cases;
  const jsonHeaders = withBody(headers, JSON_TYPE);
  for (const mutation of mutateFields(operation.body, valid.body, 'body')) {
    cases.push({ ...base, label: mutation.label, headers: jsonHeaders,
      payload: JSON.stringify(mutation.body) });
  }
  return cases;
}

// Every hostile request for one operation. `valid` holds values the operation accepts, so that
// each case differs from a good request in one place only.
export function hostileRequests(operation: Operation, valid: Valid,
  headers: Record<string, string>): HostileRequest[] {
  const base = {
    method: operation.method,
    url: fillPath(operation.path, valid.path) + queryString(valid.query),
    headers,
  };
  const otherMethod = operation.method === 'PUT' ? 'TRACE' : 'PUT';
  return [
    ...pathCases(operation, valid, base),
    ...queryCases(operation, valid, base),
    ...bodyCases(operation, valid, base),
    { ...base, label: `method ${otherMethod}`, method: otherMethod },
    { ...base, label: 'trailing slash', url: base.url.replace(/(\?|$)/, '/$1') },
    { ...base, label: 'double slash', url: base.url.replace('/v1/', '/v1//') },
  ];
}
