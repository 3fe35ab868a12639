// With REDIS_URL set, a key's rate limit holds across server processes (docs/limits.md).
// Method: two real `etax serve` processes share one fresh PostgreSQL database and one Redis,
// with GET /v1/points limited to 20 calls a minute; calls alternate between them, and the 21st
// is refused by both. The counter is keyed by the API key's id, which is new on every run,
// so runs against the same Redis never collide.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { basicAuth } from '../helpers/app.ts';
import {
  CLUSTER_SKIP_REASON,
  clusterEnabled,
  startCluster,
  type Cluster,
} from '../helpers/cluster.ts';
import type { ServerProcess } from '../helpers/server-process.ts';

const POINTS_LIMIT = 20;
const RATE_LIMIT_OVERRIDES = JSON.stringify({
  'points.retrieve': { limit: POINTS_LIMIT, windowSeconds: 60 },
});

let cluster: Cluster | null = null;
let servers: ServerProcess[] = [];
let apiKey = '';

function getPoints(server: ServerProcess) {
  return fetch(`${server.baseUrl}/v1/points`, { headers: { authorization: basicAuth(apiKey) } });
}

describe.skipIf(!clusterEnabled)(`rate limits across server processes (${CLUSTER_SKIP_REASON})`,
  () => {
  beforeAll(async () => {
    cluster = await startCluster({ count: 2, env: { RATE_LIMIT_OVERRIDES } });
    servers = cluster.servers;
    apiKey = (await cluster.createAccount()).keys.test;
  });

  afterAll(async () => {
    const codes = await cluster?.stop();
    expect(codes).toEqual([0, 0]);
  });

  it('returns 200 to 20 calls alternating between two processes, then 429 from both', async () => {
    const remaining: number[] = [];
    for (let callIndex = 0; callIndex < POINTS_LIMIT; callIndex += 1) {
      const response = await getPoints(servers[callIndex % 2]!);
      expect(response.status).toBe(200);
      expect(response.headers.get('ratelimit-policy'))
        .toBe(`"points.retrieve";q=${POINTS_LIMIT};w=60`);
      remaining.push(Number(/;r=(\d+);/.exec(response.headers.get('ratelimit') ?? '')?.[1]));
      await response.arrayBuffer();
    }
    // One counter for both processes: it goes down by one per call whichever process answers.
    expect(remaining).toEqual(Array.from({ length: POINTS_LIMIT }, (_, i) => POINTS_LIMIT - 1 - i));

    for (const server of servers) {
      const response = await getPoints(server);
      expect(response.status).toBe(429);
      const retryAfter = response.headers.get('retry-after') ?? '';
      expect(retryAfter).toMatch(/^[0-9]+$/);
      expect(Number(retryAfter)).toBeGreaterThanOrEqual(1);
      expect(((await response.json()) as { code: string }).code).toBe('RATE_LIMITED');
    }
  });
});
