import { randomBytes } from 'node:crypto';
import { createRequire } from 'node:module';
import { REFERENCE_ID_SLOT, type ScenarioRequest } from './scenarios.ts';

// autocannon, the load generator of the benchmarks, with the types of the part we use and the
// rotation that spreads a run's requests over many keys.

type AutocannonRequest = {
  setupRequest(request: Record<string, unknown>): Record<string, unknown>;
};
export type AutocannonResult = {
  requests: { average: number; total: number };
  latency: { p50: number; p97_5: number; p99: number };
  non2xx: number;
  errors: number;
  timeouts: number;
};
export type AutocannonOptions = {
  url: string;
  connections: number;
  duration: number;
  pipelining: number;
  timeout: number;
  requests: AutocannonRequest[];
};
// Hands out a scenario's requests in one global rotation. autocannon would otherwise cycle each
// connection through the list from its start, so all connections would use the same key at the
// same moment and a scenario that writes (reserve and capture points) would measure 50
// connections queueing on one account's balance row instead of the server.
// A request that asks for a unique reference id gets one made of this run's random prefix and a
// counter, so no two requests of any run share one.
export type RotatedRequest = Omit<ScenarioRequest, 'uniqueReferenceId'> &
  { headers: Record<string, string> };

export function createRotation(requests: ScenarioRequest[]): () => RotatedRequest {
  let nextIndex = 0;
  const runPrefix = randomBytes(6).toString('hex');
  // The bodies split at their reference id slots once, so a request only joins them.
  const bodyParts = requests.map((request) => request.body?.split(REFERENCE_ID_SLOT) ?? null);
  return () => {
    const position = nextIndex % requests.length;
    const { uniqueReferenceId, ...chosen } = requests[position]!;
    nextIndex += 1;
    const headers: Record<string, string> = { ...chosen.headers };
    if (!uniqueReferenceId) return { ...chosen, headers };
    const referenceId = `bench-${runPrefix}-${nextIndex}`;
    headers['service-client-reference-id'] = referenceId;
    const parts = bodyParts[position];
    return { ...chosen, headers,
      ...(parts && parts.length > 1 ? { body: parts.join(referenceId) } : {}) };
  };
}

export function roundRobin(requests: ScenarioRequest[]): AutocannonRequest[] {
  const next = createRotation(requests);
  return [{ setupRequest: (request) => ({ ...request, ...next() }) }];
}

// autocannon ships no types; this is the part of its programmatic API we use.
export const autocannon = createRequire(import.meta.url)('autocannon') as (
  options: AutocannonOptions,
) => Promise<AutocannonResult>;
