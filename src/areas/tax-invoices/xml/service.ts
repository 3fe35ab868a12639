import type { Db } from '../../../platform/db/connect.ts';
import { ApiError } from '../../../platform/errors.ts';
import type { Scope } from '../../../platform/scope.ts';
import { findXmlDocument } from './store.ts';

// The signed standard XML of a document, for its owner (docs/tax-invoice-xml.md). A document of
// another account or environment is 404 NOT_FOUND; one not signed yet, or never (it ended
// before issuance, or was issued before the standard XML), is 409 TAX_INVOICE_NOT_SIGNED.
export function createXmlService(deps: { db: Db }) {
  async function signedXml(input: { scope: Scope; issuanceKey: string }): Promise<string> {
    const found = await findXmlDocument(deps.db, input.scope, input.issuanceKey);
    if (found === null) throw new ApiError('NOT_FOUND', 'No tax invoice has this issuance key.');
    if (found.signedXml === null) {
      throw new ApiError('TAX_INVOICE_NOT_SIGNED', `The tax invoice is ${found.status} and has ` +
        'no signed XML: it gets one when it is issued (ISSUED, then TRANSMITTING and ' +
        'TRANSMITTED).');
    }
    return found.signedXml;
  }
  return { signedXml };
}

export type XmlService = ReturnType<typeof createXmlService>;
