// Finds secrets in text such as a server's log: API keys, Authorization header values, webhook
// signing secrets, and later certificate passwords and key material. A secret leaks in more
// than one form (as is, JSON-escaped, percent-encoded, inside Basic credentials, base64 or hex),
// so each is searched in all of them. Any area with a secret adds it to the list it checks.

export type Secret = { label: string; value: string };

// Anything shaped like an etax API key (src/platform/accounts/keys.ts), known to the test or not.
const API_KEY_PATTERN = /(?:test|live)_[A-Za-z0-9_-]{43}/;

// A secret shorter than this would match ordinary text by chance.
const SECRET_LENGTH_MIN = 8;

function secretForms(value: string): { form: string; text: string }[] {
  const bytes = Buffer.from(value, 'utf8');
  return [
    { form: 'as is', text: value },
    { form: 'JSON-escaped', text: JSON.stringify(value).slice(1, -1) },
    { form: 'percent-encoded', text: encodeURIComponent(value) },
    { form: 'Basic credentials', text: Buffer.from(`${value}:`).toString('base64') },
    { form: 'base64', text: bytes.toString('base64') },
    { form: 'base64url', text: bytes.toString('base64url') },
    { form: 'hex', text: bytes.toString('hex') },
  ];
}

// Describes every secret found in the text and the form it was found in; empty when clean.
export function findSecrets(text: string, secrets: Secret[]): string[] {
  const found: string[] = [];
  for (const secret of secrets) {
    if (secret.value.length < SECRET_LENGTH_MIN) {
      throw new Error(`secret ${secret.label} is too short to search for`);
    }
    for (const { form, text: needle } of secretForms(secret.value)) {
      if (text.includes(needle)) found.push(`${secret.label} (${form})`);
    }
  }
  const keyShaped = text.match(new RegExp(API_KEY_PATTERN, 'g')) ?? [];
  for (const match of new Set(keyShaped)) found.push(`an API key ${match.slice(0, 9)}…`);
  return found;
}
