import { describe, expect, it } from 'vitest';
import { createResetRequests } from '../../src/dashboard/links/reset-requests.ts';

// "Forgot your password?" answers before any work that depends on the email: whether the email
// has a user cannot show in the answer's time. The page takes each request with `submit` and
// answers; these tests hold the work that follows to its promises without timing anything.

function recorder(known: Set<string>) {
  const calls: string[] = [];
  // The work of an email with a user writes (here: records the mail); the other does nothing.
  const mailed: string[] = [];
  const work = async (email: string) => {
    calls.push(email);
    await Promise.resolve();
    if (known.has(email)) mailed.push(email);
  };
  return { calls, mailed, work };
}

describe('reset requests', () => {
  it('returns before any work starts, the same for a known and an unknown email', async () => {
    const { calls, mailed, work } = recorder(new Set(['user@example.com']));
    const requests = createResetRequests({ work, log: () => {} });
    // The answer's steps: `submit` returns nothing and starts nothing, whatever the email.
    expect(requests.submit('user@example.com', '10.0.0.1')).toBeUndefined();
    expect(requests.submit('nobody@example.com', '10.0.0.2')).toBeUndefined();
    expect(calls).toEqual([]);
    expect(requests.pending).toBe(2);
    await requests.idle();
    // Afterwards each was worked once, in the order taken; only the user was mailed.
    expect(calls).toEqual(['user@example.com', 'nobody@example.com']);
    expect(mailed).toEqual(['user@example.com']);
    expect(requests.pending).toBe(0);
  });

  it('logs a failed request and goes on with the next', async () => {
    const logged: string[] = [];
    const done: string[] = [];
    const requests = createResetRequests({
      work: async (email) => {
        if (email === 'broken@example.com') throw new Error('database down');
        done.push(email);
      },
      log: (_error, message) => { logged.push(message); },
    });
    requests.submit('broken@example.com', '10.0.0.1');
    requests.submit('next@example.com', '10.0.0.1');
    await requests.idle();
    expect(logged).toEqual(['password reset request failed']);
    expect(done).toEqual(['next@example.com']);
  });

  it('drops requests past the bound instead of growing without end', async () => {
    const logged: string[] = [];
    let release = () => {};
    const held = new Promise<void>((resolve) => { release = resolve; });
    const worked: string[] = [];
    const requests = createResetRequests({ pendingMax: 2,
      work: async (email) => { await held; worked.push(email); },
      log: (_error, message) => { logged.push(message); } });
    for (const email of ['a@example.com', 'b@example.com', 'c@example.com']) {
      requests.submit(email, '10.0.0.1');
    }
    expect(requests.pending).toBe(2);
    expect(logged).toEqual(['reset request dropped']);
    release();
    await requests.idle();
    expect(worked).toEqual(['a@example.com', 'b@example.com']);
  });
});
