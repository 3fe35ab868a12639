// The work of "Forgot your password?" (docs/dashboard.md § Invitations and password resets),
// done after the answer. Looking the email up, making the link and queueing the mail happen
// only when a user has the email, so done before the answer they would make a known email's
// answer slower than an unknown one's. The page takes the request here instead and answers at
// once: every request, whatever its email, takes the same steps before its answer (the rate
// limits, then `submit`), and what the email leads to happens afterwards, in order, one at a
// time.

// Requests waiting beyond this are dropped (and logged): the rate limits keep an honest
// instance far below it, and a flood must not grow the process's memory without end.
const PENDING_MAX = 1_000;

export type ResetRequestWork = (email: string, address: string) => Promise<void>;

export function createResetRequests(deps: { work: ResetRequestWork;
  log: (error: unknown, message: string) => void; pendingMax?: number }) {
  const pendingMax = deps.pendingMax ?? PENDING_MAX;
  let tail: Promise<void> = Promise.resolve();
  let pending = 0;

  // Takes a request; returns before any of its work starts, whatever the email.
  function submit(email: string, address: string): void {
    if (pending >= pendingMax) {
      deps.log(new Error('too many password reset requests waiting'), 'reset request dropped');
      return;
    }
    pending += 1;
    tail = tail.then(() => deps.work(email, address))
      .catch((error: unknown) => deps.log(error, 'password reset request failed'))
      .finally(() => { pending -= 1; });
  }

  return {
    submit,
    // Resolves when every request taken so far has been worked (tests, and a clean stop).
    idle: (): Promise<void> => tail,
    get pending() { return pending; },
  };
}

export type ResetRequests = ReturnType<typeof createResetRequests>;
