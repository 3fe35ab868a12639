import { createAreaModules } from '../app.ts';
import type { Config } from '../config.ts';
import { findBank, normalizeAccountNumber } from '../domain/bank-codes.ts';
import {
  isValidBusinessRegistrationNumber,
  normalizeBusinessRegistrationNumber,
} from '../domain/business-registration-number.ts';
import { ENVIRONMENTS } from '../platform/accounts/keys.ts';
import { isApiError } from '../platform/errors.ts';
import type { ConnectInput } from '../areas/connections/index.ts';
import { withPlatform } from './admin.ts';
import { CliError, parseChoice, printResult } from './output.ts';

// `etax connection add|list` (docs/connections.md): connects an account's tax portal or bank
// account the way the hosted page does, logging in first. A user id and password are read from
// stdin, one per line, so they never appear in the process list or the shell history.

type AddOptions = { account: string; env: string; kind: string; businessNumber?: string;
  issuer?: string; bankCode?: string; accountNumber?: string; json?: boolean };

async function readStdinLines(): Promise<string[]> {
  const chunks: Buffer[] = [];
  for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8').split(/\r?\n/);
}

async function userAndPassword(): Promise<{ userId: string; password: string }> {
  const [userId = '', password = ''] = await readStdinLines();
  if (userId.trim() === '' || password === '') {
    throw new CliError('give the user id and the password on stdin, one per line');
  }
  return { userId: userId.trim(), password };
}

async function connectInput(options: AddOptions): Promise<ConnectInput> {
  const kind = parseChoice('--kind', options.kind, ['HOMETAX', 'BANK_ACCOUNT'] as const);
  if (kind === 'HOMETAX' && options.issuer !== undefined) {
    return { kind, method: 'CERTIFICATE', issuerId: options.issuer };
  }
  if (kind === 'HOMETAX') {
    const number = normalizeBusinessRegistrationNumber(options.businessNumber ?? '');
    if (number === null || !isValidBusinessRegistrationNumber(number)) {
      throw new CliError('--business-number must be a valid business registration number ' +
        '(or give --issuer for the certificate option)');
    }
    return { kind, method: 'PASSWORD', businessRegistrationNumber: number,
      ...(await userAndPassword()) };
  }
  const bankCode = options.bankCode ?? '';
  const accountNumber = normalizeAccountNumber(options.accountNumber ?? '');
  if (findBank(bankCode) === null) throw new CliError('--bank-code must be a known bank code');
  if (accountNumber === null) throw new CliError('--account-number must have 8 to 16 digits');
  return { kind, bankCode, accountNumber, ...(await userAndPassword()) };
}

async function withConnections<T>(config: Config, accountId: string,
  work: (modules: Awaited<ReturnType<typeof createAreaModules>>) => Promise<T>) {
  return withPlatform(config, async (platform) => {
    await platform.accounts.requireAccount(accountId);
    const modules = await createAreaModules(platform);
    try {
      return await work(modules);
    } catch (error) {
      if (isApiError(error)) throw new CliError(`${error.code}: ${error.message}`);
      throw error;
    } finally {
      for (const module of modules.list) await module.close?.();
    }
  });
}

export async function addConnection(config: Config, options: AddOptions) {
  const environment = parseChoice('--env', options.env, ENVIRONMENTS);
  const input = await connectInput(options);
  const outcome = await withConnections(config, options.account, (modules) =>
    modules.connections.service.connect({ accountId: options.account, environment }, input));
  if (outcome.kind === 'failed') {
    throw new CliError(`login failed: ${outcome.code}: ${outcome.message}`);
  }
  printResult(Boolean(options.json), outcome.connection,
    `connection ${outcome.connection.id} (${outcome.connection.kind}) ${outcome.connection.state}`);
}

export async function listConnections(config: Config,
  options: { account: string; env: string; json?: boolean }) {
  const environment = parseChoice('--env', options.env, ENVIRONMENTS);
  const items = await withConnections(config, options.account, (modules) =>
    modules.connections.service.list({ accountId: options.account, environment }));
  printResult(Boolean(options.json), { items }, items.map((item) =>
    `${item.id} ${item.kind} ${item.businessRegistrationNumber ?? `${item.bankCode} ` +
      `${item.accountNumber}`} ${item.state}`).join('\n') || 'no connections');
}
