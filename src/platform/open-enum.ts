import { Type } from 'typebox';

// A response field whose set of values may grow, which clients must read as "other" when they do
// not know a value: a string whose known values are listed in `x-extensible-enum` and the
// description, never a closed `enum`, so that a value added later never breaks a generated
// client. Only responses use it; a request field keeps its closed enum, and the server refuses a
// value it does not know.
export function openEnum<T extends string>(known: readonly T[], description: string) {
  const listed = known.map((value) => `\`${value}\``).join(', ');
  return Type.Unsafe<T>({
    type: 'string',
    description: `${description} Known values: ${listed}. Read a value you do not know as ` +
      '"other": more may be added.',
    'x-extensible-enum': [...known],
    examples: [known[0]],
  });
}
