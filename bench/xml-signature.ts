// `npm run bench:xml-signature`: the cost of the tax invoice XML signature against the RSA
// operation it wraps, in one run on the same key (a sandbox joint certificate's RSA-2048 key):
//   raw      node:crypto's RSA-2048 PKCS#1 v1.5 SHA-256 signature of a SignedInfo-sized input;
//   sign     etax's build + sign of a one-item document (src/areas/tax-invoices/xml/), what the
//            issuance job does per document: the approval number, the XML, its canonical
//            octets and digest, SignedInfo and its signature (on the thread pool, as the job
//            makes it; awaited one at a time, so the hand-over to the pool counts too);
//   verify   the sandbox authority's check of that document (src/upstream/tax-invoices/
//            signed-document-check.ts, which the sandbox runs on a thread of its own): parse,
//            the profile, the canonical octets, the digest, the RSA check, the approval number
//            and the supplier.
// Goals (issue 33): sign ≤ 2 × raw, verify ≤ 1 × raw. The three are measured in turns, round
// after round, so that other work on the machine weighs on each alike; the medians of the
// rounds are reported. Prints a Markdown table for bench/RESULTS.md.
import { sign } from 'node:crypto';
import { performance } from 'node:perf_hooks';
import { parseArgs } from 'node:util';
import { signTaxInvoiceXml } from '../src/areas/tax-invoices/index.ts';
import { signedXmlDefect } from '../src/upstream/tax-invoices/signed-document-check.ts';
import { sandboxSigner } from '../test/helpers/sandbox-signer.ts';

const { values } = parseArgs({ options: {
  rounds: { type: 'string', default: '7' },
  iterations: { type: 'string', default: '1000' },
} });
const ROUNDS = Number(values.rounds);
const ITERATIONS = Number(values.iterations);

const { signer, privateKey } = await sandboxSigner();

const row = {
  issuanceKey: 'txi_8D529FAD3EBAE050B79CE943CC', taxType: 'TAXABLE',
  supplyCostTotal: 200_000, taxTotal: 20_000, totalAmount: 220_000, amendmentReason: null,
  originalNtsTransactionId: null,
  invoice: {
    date: '2026-11-20', purpose: 'CLAIM', description: '11월 이용료', payment: null,
    supplier: { identificationNumber: '1234567891', taxRegistrationId: null,
      organizationName: '주식회사 이택스', representativeName: '홍길동',
      address: '서울특별시 중구 세종대로 110', businessType: '서비스', businessItem: '소프트웨어',
      manager: { email: 'tax@example.co.kr', name: '김담당', telephone: '02-1234-5678' } },
    supplied: { identificationNumber: '2208162517', taxRegistrationId: null,
      organizationName: '주식회사 받는곳', representativeName: '이영희',
      address: '서울특별시 강남구 테헤란로 1', businessType: '도소매', businessItem: '전자제품',
      managers: [{ email: 'account@example.com', name: '박수신', telephone: '010-1234-5678' }] },
    items: [{ date: '2026-11-20', name: '클라우드 사용료', specification: '월 구독', quantity: 1,
      unitPrice: 200_000, supplyCost: 200_000, tax: 20_000, description: null }],
  },
} as unknown as Parameters<typeof signTaxInvoiceXml>[0];

const issuedAt = new Date('2026-11-20T01:00:00Z');
let counter = 0n;
const signOne = () => signTaxInvoiceXml(row, signer, issuedAt,
  { systemCode: '41000000', counter: (counter += 1n) });
const sample = await signOne();
// A SignedInfo-sized input for the raw signature.
const rawInput = Buffer.from(/<ds:SignedInfo>[\s\S]*<\/ds:SignedInfo>/.exec(sample.xml)![0]);
const request = { issuanceKey: row.issuanceKey, writeDate: '2026-11-20',
  supplierNumber: '1234567891', recipientNumber: '2208162517',
  approvalNumber: sample.approvalNumber, signedDocument: sample.xml,
  signature: sample.signatureValue, certificate: sample.certificate };
if (signedXmlDefect(request) !== null) throw new Error('the sandbox refuses the document');

async function microsecondsPerOperation(operation: () => unknown): Promise<number> {
  const start = performance.now();
  for (let index = 0; index < ITERATIONS; index += 1) await operation();
  return ((performance.now() - start) * 1_000) / ITERATIONS;
}

const measured: Record<'raw' | 'sign' | 'verify', number[]> = { raw: [], sign: [], verify: [] };
for (let round = 0; round < ROUNDS; round += 1) {
  measured.raw.push(await microsecondsPerOperation(() => sign('sha256', rawInput, privateKey)));
  measured.sign.push(await microsecondsPerOperation(signOne));
  measured.verify.push(await microsecondsPerOperation(() => signedXmlDefect(request)));
}
const median = (list: number[]) => [...list].sort((a, b) => a - b)[Math.floor(list.length / 2)]!;
const raw = median(measured.raw);
const sign_ = median(measured.sign);
const verify = median(measured.verify);
const line = (name: string, micros: number, goal: number | null) =>
  `| ${name} | ${micros.toFixed(1)} | ${(1e6 / micros).toFixed(0)} | ${
    (micros / raw).toFixed(2)} | ${goal === null ? '' : `≤ ${goal} × raw: ${
    micros / raw <= goal ? 'met' : 'not met'}`} |`;
console.log(`${ROUNDS} rounds of ${ITERATIONS}, medians; document ${sample.xml.length} bytes\n`);
console.log('| Operation | µs/op | ops/s (one core) | × raw | Goal |');
console.log('|---|---|---|---|---|');
console.log(line('raw RSA-2048 signature (node:crypto)', raw, null));
console.log(line('build + sign a one-item document', sign_, 2));
console.log(line('sandbox verification of it', verify, 1));
