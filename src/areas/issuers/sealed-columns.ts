import type { SealingKey } from '../../domain/sealed-box.ts';
import type { Db } from '../../platform/db/connect.ts';
import { resealColumn, type ResealCount } from '../../platform/reseal.ts';
import * as store from './store.ts';

// What the issuers area keeps sealed (docs/issuers.md § Keys at rest), sealed again with the
// current encryption key after a rotation (`etax reseal`): registered certificates' private keys,
// sealed with the issuer id, and uploads waiting for their job, sealed with the upload id.
export async function resealIssuerSecrets(db: Db, sealing: SealingKey): Promise<ResealCount[]> {
  return [
    await resealColumn(sealing, {
      name: 'issuer_certificates.sealed_private_key',
      nextBatch: (after, limit) => store.listSealedPrivateKeys(db, after, limit),
      replace: (issuerId, box, resealed) =>
        store.replaceSealedPrivateKey(db, issuerId, box, resealed),
    }),
    await resealColumn(sealing, {
      name: 'certificate_uploads.sealed_upload',
      nextBatch: (after, limit) => store.listSealedUploads(db, after, limit),
      replace: (uploadId, box, resealed) => store.replaceSealedUpload(db, uploadId, box, resealed),
    }),
  ];
}
