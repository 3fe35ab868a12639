// Whether a certificate is in force at a moment, from its validity period alone. Apart from
// joint-certificate.ts so that issuance, which checks it on every request, does not load the
// certificate parser to ask.

type Validity = 'valid' | 'expired' | 'notYetValid';

export function validityAt(period: { notBefore: Date; notAfter: Date }, now: Date): Validity {
  if (now.getTime() < period.notBefore.getTime()) return 'notYetValid';
  if (now.getTime() > period.notAfter.getTime()) return 'expired';
  return 'valid';
}
