// The bounds etax puts on an uploaded signing key file (signPri.key), apart from reading it:
// the registration page, the API's schema and the sandbox command check them before the file's
// ASN.1 is loaded (signing-key-file.ts), and the rejection messages name them.

// Real files use 2048 iterations; the bound stops a hostile file from costing minutes of CPU.
export const KEY_FILE_ITERATIONS_MAX = 100_000;
// The longest password etax takes for a key file: CAs' software allows far shorter ones, and the
// bound keeps an upload from carrying anything else in the password field.
export const KEY_FILE_PASSWORD_LENGTH_MAX = 128;
