import type { BankAccountPortal } from './index.ts';

// The sandbox bank of test keys: password `wrong-password` fails with INVALID_CREDENTIALS, an
// account number ending in 0000 with ACCOUNT_NOT_FOUND; any other login connects.
export function createSandboxBankAccountPortal(): BankAccountPortal {
  return {
    async login(credentials) {
      if (credentials.password === 'wrong-password') {
        return { kind: 'failed', code: 'INVALID_CREDENTIALS',
          message: 'The bank user id or password is wrong.' };
      }
      if (credentials.accountNumber.endsWith('0000')) {
        return { kind: 'failed', code: 'ACCOUNT_NOT_FOUND',
          message: 'The bank has no such account for this user.' };
      }
      return { kind: 'connected', holderName: '샌드박스 예금주' };
    },
  };
}
