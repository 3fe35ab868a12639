// PostgreSQL aborts one transaction of a deadlock (SQLSTATE 40P01) and rolls all of its work
// back, so running the same work again is safe and usually succeeds.

const DEADLOCK_DETECTED = '40P01';

type RetryOptions = {
  attemptsMax: number;
  // Wait before attempt n + 1 is delayMs × n; 0 retries at once.
  delayMs: number;
};

export async function retryingDeadlocks<T>(
  work: () => Promise<T>,
  { attemptsMax, delayMs }: RetryOptions,
): Promise<T> {
  for (let attempt = 1; ; attempt += 1) {
    try {
      return await work();
    } catch (error) {
      const deadlock = (error as { code?: string }).code === DEADLOCK_DETECTED;
      if (!deadlock || attempt >= attemptsMax) throw error;
      if (delayMs > 0) await new Promise((resolve) => setTimeout(resolve, delayMs * attempt));
    }
  }
}
