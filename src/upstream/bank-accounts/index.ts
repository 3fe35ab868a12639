// A bank's online service as a bank account connection sees it (docs/connections.md,
// docs/bank-transactions.md): a login with the account's credentials that proves the connection
// works, and the account's transactions over a range of days with its balance. Upstream trouble
// of any kind is the `unavailable` result. sandbox.ts answers test keys; gateway.ts reaches the
// operator's gateway (BANK_ACCOUNT_GATEWAY_URL) for live keys.

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

// One line of the account's statement (거래내역), as the bank lists it.
export type BankStatementLine = {
  // The booking day in Korea, `YYYY-MM-DD`.
  bookedDate: string;
  // The bank's own order of the line within its day, from 1: the bank lists a day's lines in
  // booking order and only appends to a day, so (bookedDate, sequence) names one line across
  // every later listing, even when the bank corrects its content.
  sequence: number;
  // `HH:MM:SS` in Korea when the bank gives the time; null otherwise.
  bookedTime: string | null;
  direction: 'DEPOSIT' | 'WITHDRAWAL';
  // In won, positive.
  amount: number;
  // The balance after the line, in won; null when the bank does not show it.
  balanceAfter: number | null;
  counterpartyName: string | null;
  // 적요: the bank's short description of the line.
  memo: string | null;
  // The branch (취급점) that booked it.
  branch: string | null;
};

type BankTransactionsRequest = {
  // Booking days in Korea, `YYYY-MM-DD`, both included.
  from: string;
  to: string;
};

type BankTransactionsResult =
  | { kind: 'listed'; holderName: string; balance: number; lines: BankStatementLine[] }
  | { kind: 'failed'; code: string; message: string }
  | { kind: 'unavailable' };

export type BankAccountPortal = {
  login(credentials: BankAccountCredentials, signal: AbortSignal): Promise<BankLoginResult>;
  // Logs in and lists the statement lines booked from `from` to `to`, in booking order.
  transactions(credentials: BankAccountCredentials, request: BankTransactionsRequest,
    signal: AbortSignal): Promise<BankTransactionsResult>;
};
