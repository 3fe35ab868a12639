// A bank's online service as a bank account connection sees it (docs/connections.md): a login
// with the account's credentials that proves the connection works. Upstream trouble of any kind
// is the `unavailable` result. sandbox.ts answers test keys; gateway.ts reaches the operator's
// gateway (BANK_ACCOUNT_GATEWAY_URL) for live keys.

export type BankAccountCredentials = {
  bankCode: string;
  accountNumber: string;
  // The bank's online banking user id and password.
  userId: string;
  password: string;
};

export type BankLoginResult =
  | { kind: 'connected'; holderName: string }
  | { kind: 'failed'; code: string; message: string }
  | { kind: 'unavailable' };

export type BankAccountPortal = {
  login(credentials: BankAccountCredentials, signal: AbortSignal): Promise<BankLoginResult>;
};
