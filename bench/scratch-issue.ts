import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { createRequire } from 'node:module';
import { freePort, startServerProcess, waitUntilReady, stopServerProcess } from '../test/helpers/server-process.ts';
import { registerSuppliers } from './suppliers.ts';
import { SCENARIOS } from './scenarios.ts';
const autocannon = createRequire(import.meta.url)('autocannon');
const name = `etax_scratch_${randomBytes(4).toString('hex')}`;
execFileSync('psql', ['postgres://postgres@127.0.0.1:5432/test', '-qc', `create database ${name}`]);
const env = { ...process.env, DATABASE_URL: `postgres://postgres@127.0.0.1:5432/${name}`, LOG_LEVEL: 'warn',
  CERTIFICATE_ENCRYPTION_KEY: randomBytes(32).toString('base64'),
  RATE_LIMIT_OVERRIDES: JSON.stringify({ 'taxInvoices.issue': { limit: 1000000, windowSeconds: 60 } }) };
execFileSync('node', ['bin/etax.js', 'migrate'], { env });
const keys: string[] = [];
for (let i = 0; i < 20; i++) {
  const out = execFileSync('node', ['bin/etax.js', 'account', 'create', '--name', 'x'], { env, encoding: 'utf8' });
  keys.push(/test_[A-Za-z0-9_-]+/.exec(out)![0]);
}
let server = startServerProcess({ port: await freePort(), env });
await waitUntilReady(server, { attemptsMax: 200, pollIntervalMs: 250 });
const suppliers = await registerSuppliers(server.baseUrl, keys);
if (process.env.API_ONLY) {
  await stopServerProcess(server, { exitWaitMs: 30000 });
  server = startServerProcess({ port: await freePort(), env: { ...env, WORKERS_ENABLED: 'false' }, nodeArgs: (process.env.NODE_ARGS ?? '').split(' ').filter(Boolean) });
  await waitUntilReady(server, { attemptsMax: 200, pollIntervalMs: 250 });
}
const scenario = SCENARIOS.find((s) => s.name.startsWith('POST /v1/taxInvoices'))!;
const reqs = scenario.buildRequests({ keys, liveKeys: [], suppliers });
let n = 0;
const result = await autocannon({ url: server.baseUrl, connections: Number(process.env.C ?? 50), duration: 8,
  requests: [{ setupRequest(r: Record<string, unknown>) { const { uniqueReferenceId: _u, ...c } = reqs[n % reqs.length]!; n++; return { ...r, ...c, headers: { ...c.headers, 'service-client-reference-id': `s-${n}-${name}` } }; } }] });
console.log('req/s', result.requests.average, 'p50', result.latency.p50, 'p99', result.latency.p99, 'non2xx', result.non2xx);
await stopServerProcess(server, { exitWaitMs: 30000 });
execFileSync('psql', ['postgres://postgres@127.0.0.1:5432/test', '-qc', `drop database ${name} with (force)`]);
