// The arguments of the account-scoped `etax` commands, as the CLI tests pass them.

export function grantArgs(accountId: string, environment: string, amount: string) {
  return ['points', 'grant', '--account', accountId, '--env', environment, '--amount', amount];
}

export function showArgs(accountId: string, environment: string) {
  return ['points', 'show', '--account', accountId, '--env', environment];
}

export function keyArgs(accountId: string, environment: string) {
  return ['key', 'create', '--account', accountId, '--env', environment];
}
