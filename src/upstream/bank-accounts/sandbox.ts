import type { BankAccountCredentials, BankAccountPortal, BankLoginResult } from './index.ts';
import { sandboxStatement } from './sandbox-history.ts';

// The sandbox bank of test keys (docs/sandbox.md § Bank transactions):
//   - password `wrong-password` fails with INVALID_CREDENTIALS, an account number ending in 0000
//     with ACCOUNT_NOT_FOUND; any other login connects;
//   - transactions come from the account's deterministic history (sandbox-history.ts) up to the
//     clock's now;
//   - an account number ending in 9001 connects, but its syncs fail with INVALID_CREDENTIALS (the
//     password was changed at the bank after the connection was made); one ending in 9002
//     connects, but its syncs never get an answer, so they fail when the gateway timeout ends.

const HOLDER_NAME = '샌드박스 예금주';

export function createSandboxBankAccountPortal(options: { now: () => Date }):
  BankAccountPortal {
  const { now } = options;
  async function login(credentials: BankAccountCredentials): Promise<BankLoginResult> {
    if (credentials.password === 'wrong-password') {
      return { kind: 'failed', code: 'INVALID_CREDENTIALS',
        message: 'The bank user id or password is wrong.' };
    }
    if (credentials.accountNumber.endsWith('0000')) {
      return { kind: 'failed', code: 'ACCOUNT_NOT_FOUND',
        message: 'The bank has no such account for this user.' };
    }
    return { kind: 'connected', holderName: HOLDER_NAME };
  }
  return {
    login,

    async transactions(credentials, request, signal) {
      const answer = await login(credentials);
      if (answer.kind !== 'connected') return answer;
      if (credentials.accountNumber.endsWith('9001')) {
        return { kind: 'failed', code: 'INVALID_CREDENTIALS',
          message: 'The bank no longer accepts the user id and password of this connection.' };
      }
      if (credentials.accountNumber.endsWith('9002')) {
        await new Promise<void>((resolve) => {
          if (signal.aborted) resolve();
          else signal.addEventListener('abort', () => resolve(), { once: true });
        });
        return { kind: 'unavailable' };
      }
      const statement = sandboxStatement(credentials.bankCode, credentials.accountNumber,
        request.from, request.to, now());
      return { kind: 'listed', holderName: HOLDER_NAME, ...statement };
    },
  };
}
