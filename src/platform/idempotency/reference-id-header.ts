import { Type } from '@fastify/type-provider-typebox';
import { REFERENCE_ID_LENGTH_MAX } from './claims.ts';

// The `Service-Client-Reference-Id` header as route schemas declare it: 1 to 255
// characters, not blank. Areas spread it into their `headers` schema, optional for tax invoices
// and required for cash receipts and document issuance; validation failures are 400
// INVALID_REQUEST naming the header.
export const ReferenceIdHeaderValue = Type.String({
  minLength: 1,
  maxLength: REFERENCE_ID_LENGTH_MAX,
  pattern: '\\S',
  description:
    'Client reference id, 1 to 255 characters, not blank. See docs/idempotency.md for how a ' +
    'repeated value behaves in each area.',
});

export function referenceIdHeaders(options: { required: boolean }) {
  const value = options.required ? ReferenceIdHeaderValue : Type.Optional(ReferenceIdHeaderValue);
  return Type.Object({ 'service-client-reference-id': value });
}
