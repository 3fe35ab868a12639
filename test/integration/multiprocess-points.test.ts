// Limits and points hold across server processes, over real HTTP: two `etax serve` processes
// share one PostgreSQL and one Redis, and the test spreads concurrent calls of one key over
// both. points-never-overspend.test.ts proves the ledger's reservations inside one process;
// this file proves the whole request path (auth, rate limit, reserve, capture) between two.
// - 600 profile retrievals within a minute: exactly 300 answered, 300 refused with
//   429 and Retry-After, and exactly 300 × 90 points charged.
// - 1,000 holder lookups, 100 at a time, on a balance that covers 400: exactly 400 charged, every
//   refusal 402 PAYMENT_REQUIRED or 409 AVAILABLE_POINTS_INSUFFICIENT, ledger and balance agree.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { auditBalance } from '../../src/platform/points/store.ts';
import { basicAuth } from '../helpers/app.ts';
import {
  CLUSTER_SKIP_REASON,
  clusterEnabled,
  startCluster,
  type Cluster,
} from '../helpers/cluster.ts';
import { ledgerSnapshot } from '../helpers/ledger-audit.ts';

const PROFILE_RETRIEVALS = 600;
const PROFILE_LIMIT_PER_MINUTE = 300;
const PROFILE_POINTS = 90;
const FOUND_PROFILE = '999-99-00005';
const HOLDER_LOOKUPS = 1_000;
const HOLDER_POINTS = 50; // Per account with a holder name.
const AFFORDABLE_LOOKUPS = 400;
const FOUND_ACCOUNT = { bankCode: '004', accountNumber: '123-456-789012' };

let cluster: Cluster | null = null;

beforeAll(async () => {
  if (!clusterEnabled) return;
  cluster = await startCluster({ count: 2 });
});
afterAll(async () => {
  const codes = await cluster?.stop();
  if (codes) expect(codes).toEqual([0, 0]);
});

type Answer = { status: number; code: string | null; retryAfter: string | null };

async function answerOf(response: Response): Promise<Answer> {
  const text = await response.text();
  const code = response.status >= 400 && text !== ''
    ? (JSON.parse(text) as { code: string }).code : null;
  return { status: response.status, code, retryAfter: response.headers.get('retry-after') };
}

// Calls in flight at once. All 600 or 1,000 at once stall each process's event loop long
// enough, on a loaded machine, for a Redis reply to miss the limiter's command timeout, and the
// limiter then counts in memory by design (docs/limits.md): a test of its outage, not of this.
const CALLS_IN_FLIGHT_MAX = 100;

// Sends the calls in waves of CALLS_IN_FLIGHT_MAX, alternating between the processes.
async function spread(count: number, call: (baseUrl: string) => Promise<Response>) {
  const servers = cluster!.servers;
  const answers: Answer[] = [];
  for (let first = 0; first < count; first += CALLS_IN_FLIGHT_MAX) {
    const wave = Math.min(CALLS_IN_FLIGHT_MAX, count - first);
    answers.push(...await Promise.all(Array.from({ length: wave }, (_, index) =>
      call(servers[(first + index) % servers.length]!.baseUrl).then(answerOf))));
  }
  return answers;
}

function countBy(answers: Answer[]): Record<string, number> {
  const counts: Record<string, number> = {};
  for (const { status, code } of answers) {
    const key = `${status} ${code ?? ''}`.trim();
    counts[key] = (counts[key] ?? 0) + 1;
  }
  return counts;
}

async function expectLedgerAgrees(accountId: string) {
  const snapshot = await ledgerSnapshot(cluster!.assertions.db, accountId, 'test');
  const audit = await auditBalance(cluster!.assertions.db, { accountId, environment: 'test' });
  expect(audit.ledgerPoints).toBe(snapshot.postedPoints);
  expect(audit.openReservedPoints).toBe(snapshot.reservedPoints);
  return snapshot;
}

describe.skipIf(!clusterEnabled)(`points and limits across processes (${CLUSTER_SKIP_REASON})`,
  () => {
    it('answers exactly 300 of 600 retrievals in a minute over two processes and charges 300 × 90',
      async () => {
        const { accountId, keys } = await cluster!.createAccount();
        const before = await expectLedgerAgrees(accountId);
        const authorization = basicAuth(keys.test);
        const answers = await spread(PROFILE_RETRIEVALS, (baseUrl) =>
          fetch(`${baseUrl}/v1/businessProfiles/${FOUND_PROFILE}`, { headers: { authorization } }));

        expect(countBy(answers)).toEqual({
          200: PROFILE_LIMIT_PER_MINUTE,
          '429 RATE_LIMITED': PROFILE_RETRIEVALS - PROFILE_LIMIT_PER_MINUTE,
        });
        for (const answer of answers.filter(({ status }) => status === 429)) {
          expect(answer.retryAfter).toMatch(/^[1-9][0-9]*$/);
        }
        const after = await expectLedgerAgrees(accountId);
        expect(after.postedPoints).toBe(
          before.postedPoints - PROFILE_LIMIT_PER_MINUTE * PROFILE_POINTS);
        expect(after.ledgerEntryCount).toBe(before.ledgerEntryCount + PROFILE_LIMIT_PER_MINUTE);
        expect(after.reservedPoints).toBe(0);
      });

    it('charges exactly 400 of 1,000 lookups, 100 at a time, on a balance that covers 400',
      async () => {
        const grantPoints = AFFORDABLE_LOOKUPS * HOLDER_POINTS;
        const { accountId, keys } = await cluster!.createAccount({ testSignupPoints: grantPoints });
        const headers = { authorization: basicAuth(keys.test), 'content-type': 'application/json' };
        const answers = await spread(HOLDER_LOOKUPS, (baseUrl) =>
          fetch(`${baseUrl}/v1/bankAccountHolders:inquire`, {
            method: 'POST', headers, body: JSON.stringify(FOUND_ACCOUNT),
          }));

        const counts = countBy(answers);
        expect(counts[200]).toBe(AFFORDABLE_LOOKUPS);
        // While other lookups hold reservations the posted balance still covers a call: 409.
        // Once captures have spent it, the posted balance is below 50: 402. Nothing else.
        const refused = (counts['402 PAYMENT_REQUIRED'] ?? 0) +
          (counts['409 AVAILABLE_POINTS_INSUFFICIENT'] ?? 0);
        // With the 400 answered, this leaves no room for any other status.
        expect(refused).toBe(HOLDER_LOOKUPS - AFFORDABLE_LOOKUPS);
        const after = await expectLedgerAgrees(accountId);
        expect(after).toEqual({
          postedPoints: 0,
          reservedPoints: 0,
          // The sign-up grant and one capture per answered lookup.
          ledgerEntryCount: 1 + AFFORDABLE_LOOKUPS,
        });
      });
  });
