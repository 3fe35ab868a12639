import pino from 'pino';
import { loadConfig } from '../src/config.ts';
import { systemOutside } from '../src/platform/outside.ts';
import { openPlatform } from '../src/platform/platform.ts';

// Test points of every seeded account: the most TEST_SIGNUP_POINTS allows. Every autocannon
// connection starts at the first key, so the first keys take 50 calls per run each; a paid
// scenario must never run them dry, or it would measure 402s (a bulk holder lookup of 100
// accounts costs 5,000 points, so this covers 200,000 of them per key).
const BENCH_SIGNUP_POINTS = 1_000_000_000;

// Creates the accounts in this process, before the server starts: one process per key through
// the CLI would take minutes, and an embedded database can be open in only one process at a time.
export type SeededKeys = { keys: string[]; liveKeys: string[] };

export async function seedKeys(env: Record<string, string>, keyCount: number): Promise<SeededKeys> {
  const config = loadConfig({
    ...process.env,
    ...env,
    LOG_LEVEL: 'warn',
    TEST_SIGNUP_POINTS: String(BENCH_SIGNUP_POINTS),
  });
  const platform = await openPlatform(config,
    systemOutside({ logDestination: pino.destination(2) }));
  try {
    const seeded: SeededKeys = { keys: [], liveKeys: [] };
    for (let index = 0; index < keyCount; index += 1) {
      const name = `bench ${index}`;
      const account = await platform.accounts.createAccount({ name, plan: 'FREE' });
      await platform.points.grant({
        accountId: account.accountId,
        environment: 'live',
        points: BENCH_SIGNUP_POINTS,
      });
      seeded.keys.push(account.keys.test);
      seeded.liveKeys.push(account.keys.live);
    }
    return seeded;
  } finally {
    await platform.close();
  }
}
