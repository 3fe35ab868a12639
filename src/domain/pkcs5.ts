import {
  AsnIntegerBigIntConverter,
  AsnProp,
  AsnPropTypes,
  AsnType,
  AsnTypeTypes,
} from '@peculiar/asn1-schema';
import { AlgorithmIdentifier } from '@peculiar/asn1-x509';

// The PKCS #5 (RFC 8018) parameter shapes that an encrypted joint-certificate key needs and
// that no @peculiar package models. The schema decorators are applied as plain calls: they are
// written for TypeScript's legacy decorators, and this project compiles standard ones.

// The package index does not export this options type, only the decorator that takes it.
type FieldOptions = Parameters<typeof AsnProp>[0];

// Iteration counts are read as BigInt so that no count, however long its encoding, is rounded
// or turned into a string before the caller checks its range.
const COUNT: FieldOptions = {
  type: AsnPropTypes.Integer,
  converter: AsnIntegerBigIntConverter,
};

function sequence(schema: new () => object, fields: Record<string, FieldOptions>): void {
  AsnType({ type: AsnTypeTypes.Sequence })(schema);
  for (const [name, options] of Object.entries(fields)) AsnProp(options)(schema.prototype, name);
}

// PBEParameter (RFC 8018 A.3), which KISA's two SEED-CBC schemes use as their parameters.
export class PbeParameter {
  salt = new ArrayBuffer(0);
  iterationCount = 0n;
  constructor(fields: Partial<PbeParameter> = {}) {
    Object.assign(this, fields);
  }
}
sequence(PbeParameter, { salt: { type: AsnPropTypes.OctetString }, iterationCount: COUNT });

// PBKDF2-params (RFC 8018 A.2). The salt is only the `specified` OCTET STRING: the other
// choice is reserved for future versions of the RFC and no CA writes it.
export class Pbkdf2Parameters {
  salt = new ArrayBuffer(0);
  iterationCount = 0n;
  // Read so that a file carrying it parses; the SEED key length is fixed, so it is not used.
  keyLength?: bigint;
  // Absent means the default, HMAC-SHA1.
  prf?: AlgorithmIdentifier;
  constructor(fields: Partial<Pbkdf2Parameters> = {}) {
    Object.assign(this, fields);
  }
}
sequence(Pbkdf2Parameters, {
  salt: { type: AsnPropTypes.OctetString },
  iterationCount: COUNT,
  keyLength: { ...COUNT, optional: true },
  prf: { type: AlgorithmIdentifier, optional: true },
});

// PBES2-params (RFC 8018 A.4).
export class Pbes2Parameters {
  keyDerivationFunc = new AlgorithmIdentifier();
  encryptionScheme = new AlgorithmIdentifier();
  constructor(fields: Partial<Pbes2Parameters> = {}) {
    Object.assign(this, fields);
  }
}
sequence(Pbes2Parameters, {
  keyDerivationFunc: { type: AlgorithmIdentifier },
  encryptionScheme: { type: AlgorithmIdentifier },
});
