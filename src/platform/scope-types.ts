import type { Environment } from './accounts/keys.ts';

// Everything a customer owns lives in one scope: an account and one of its two environments.
// Data made with a test key is invisible to live keys and the reverse, and one account never sees
// another's, because every store function takes the scope and filters by both columns.
export type Scope = { accountId: string; environment: Environment };

// The scope and the API key that made the call, for what is kept per key (reference ids).
export type Caller = Scope & { apiKeyId: string };
