import { stdSerializers } from 'pino';

// How an error is written to the log (the `err` key of every log line). pino's serializer
// copies the message, the stack and every own property of an error, which for database errors
// means the values a statement was given: drizzle's failed-query error carries its parameters
// in `params` and in its message ("params: …"), and PostgreSQL's errors name the offending
// values in `detail` ("Key (…)=(…) already exists", "Failing row contains (…)"). Those values
// are customers' data (an identity number, a bank account number), so they are never logged:
// the statement's text and PostgreSQL's code, constraint and table stay, which is what a
// failure is read by.

const LEFT_OUT = '[not logged]';
// Own properties of database errors that hold the values of a statement or a row.
const VALUE_PROPERTIES = ['params', 'parameters', 'detail', 'where', 'internalQuery'] as const;

type ErrorLike = Error & { params?: unknown; cause?: unknown };

// The "params: …" text of every failed-query error in the chain, as drizzle wrote it.
function paramsTexts(error: unknown): string[] {
  const texts: string[] = [];
  for (let current = error; current instanceof Error; current = (current as ErrorLike).cause) {
    const { params } = current as ErrorLike;
    if (params !== undefined) texts.push(`\nparams: ${String(params)}`);
  }
  return texts;
}

function leaveOut(text: string, values: readonly string[]): string {
  return values.reduce((scrubbed, value) => scrubbed.split(value).join(`\nparams: ${LEFT_OUT}`),
    text);
}

export function serializeError(error: unknown): unknown {
  const serialized = stdSerializers.err(error as Error) as unknown;
  if (!(error instanceof Error) || typeof serialized !== 'object' || serialized === null) {
    return serialized;
  }
  const record = serialized as Record<string, unknown>;
  const texts = paramsTexts(error).filter((text) => text.length > '\nparams: '.length);
  for (const key of ['message', 'stack'] as const) {
    if (typeof record[key] === 'string') record[key] = leaveOut(record[key], texts);
  }
  for (const property of VALUE_PROPERTIES) {
    if (record[property] !== undefined) record[property] = LEFT_OUT;
  }
  return record;
}
