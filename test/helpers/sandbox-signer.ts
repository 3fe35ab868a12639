import { createPrivateKey, type KeyObject } from 'node:crypto';
import { issueSandboxCertificate } from '../../src/domain/sandbox-certificate.ts';
import { decryptSigningKeyFile } from '../../src/domain/signing-key-file.ts';
import { signOnThreadPool, type XmlSigner } from '../../src/domain/xml-signature.ts';

// A joint certificate of the etax Sandbox CA for 1234567891 and the signer of its key, as an
// issuer registers them: for tests and benchmarks that sign tax invoice XML.
export async function sandboxSigner(): Promise<{ signer: XmlSigner; privateKey: KeyObject }> {
  const password = 'sandbox-password-1';
  const certificate = await issueSandboxCertificate({ businessRegistrationNumber: '1234567891',
    organizationName: '주식회사 이택스', password, now: new Date() });
  const key = decryptSigningKeyFile(certificate.signPri, password);
  if (key.kind !== 'decrypted') throw new Error('the sandbox key file did not open');
  const privateKey = createPrivateKey({ key: key.pkcs8, format: 'der', type: 'pkcs8' });
  const signer: XmlSigner = { certificate: certificate.signCert,
    sign: signOnThreadPool(privateKey) };
  return { signer, privateKey };
}
