// CLI output: JSON for scripts (--json), short lines for people. Errors go to stderr.

export function printResult(json: boolean, value: Record<string, unknown>, human: string): void {
  process.stdout.write(json ? `${JSON.stringify(value)}\n` : `${human}\n`);
}

export class CliError extends Error {}

export function parsePositiveInteger(name: string, raw: string): number {
  if (!/^[0-9]+$/.test(raw)) throw new CliError(`${name} must be a positive integer`);
  const value = Number(raw);
  if (!Number.isSafeInteger(value) || value <= 0) {
    throw new CliError(`${name} must be a positive integer`);
  }
  return value;
}

export function parseChoice<T extends string>(name: string, raw: string, choices: readonly T[]): T {
  if (!(choices as readonly string[]).includes(raw)) {
    throw new CliError(`${name} must be one of ${choices.join(', ')}`);
  }
  return raw as T;
}
