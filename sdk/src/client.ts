import createClient, { type Client } from 'openapi-fetch';
import { EtaxError } from './errors.js';
import { retryingFetch, type RetryOptions } from './retry.js';
import type { paths } from './schema.js';

export type EtaxClientOptions = {
  // A test_… key reaches the sandbox, a live_… key production.
  apiKey: string;
  // Where the server is, without /v1.
  baseUrl?: string;
  // Retrying of 429 and 503 answers (retry.ts); false sends every request once.
  retry?: RetryOptions | false;
  // Another fetch, for a proxy or tests.
  fetch?: (request: Request) => Promise<Response>;
};

// The typed client of the whole API, generated from the OpenAPI document: `GET`, `POST`, `PUT`,
// `PATCH` and `DELETE` take a path of the document and answer `{ data, error, response }`.
export type EtaxClient = Client<paths>;

export const DEFAULT_BASE_URL = 'http://localhost:8080';

export function createEtaxClient(options: EtaxClientOptions): EtaxClient {
  if (!/^(test|live)_[A-Za-z0-9_-]{43}$/.test(options.apiKey)) {
    throw new TypeError('apiKey must be an etax API key (test_… or live_…).');
  }
  const send = options.fetch ?? ((request: Request) => globalThis.fetch(request));
  const credentials = btoa(`${options.apiKey}:`);
  return createClient<paths>({
    baseUrl: (options.baseUrl ?? DEFAULT_BASE_URL).replace(/\/+$/, ''),
    headers: { authorization: `Basic ${credentials}` },
    fetch: options.retry === false ? send : retryingFetch(send, options.retry),
  });
}

type Result<Data> = { data?: Data; error?: unknown; response: Response };

// The data of a successful answer, or an EtaxError for any other: `await unwrap(etax.GET(…))`.
export async function unwrap<Data>(pending: Promise<Result<Data>>): Promise<Data> {
  const { data, error, response } = await pending;
  if (!response.ok) throw EtaxError.fromResponse(response, error);
  return data as Data;
}
