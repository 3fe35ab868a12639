// The sandbox tax authority checks signed documents on a thread of its own: every check gets its
// own answer, the same as the check made in place, however many are sent at once; a thread that
// fails fails the checks it held as an unreachable authority (which the sandbox answers as
// `unavailable`, retried later) and the next check starts a new thread.
import { beforeAll, describe, expect, it } from 'vitest';
import {
  signXmlDocument,
  type UnsignedXmlDocument,
  type XmlSigner,
} from '../../../src/domain/xml-signature.ts';
import {
  AuthorityUnreachable,
  checkSignedDocument,
  createAuthorityChecks,
} from '../../../src/upstream/tax-invoices/authority-checks.ts';
import { createSandboxTransmitter } from '../../../src/upstream/tax-invoices/sandbox.ts';
import {
  signedXmlDefect,
  type SignedDocumentCheck,
} from '../../../src/upstream/tax-invoices/signed-document-check.ts';
import { sandboxSigner } from '../../helpers/sandbox-signer.ts';

const NS = 'urn:kr:or:kec:standard:Tax:ReusableAggregateBusinessInformationEntitySchemaModule:1:0';
const SCRIPTED = new URL('./fixtures/scripted-authority-thread.mjs', import.meta.url);
const FAILING = new URL('./fixtures/failing-authority-thread.mjs', import.meta.url);

let signer: XmlSigner;

beforeAll(async () => {
  ({ signer } = await sandboxSigner());
});

const document = (issueId: string, item: string): UnsignedXmlDocument => ({
  rootStartTag: `<TaxInvoice xmlns="${NS}">`,
  namespaces: [['', NS]],
  exchangedDocument: '<ExchangedDocument><ID>txi_authority</ID></ExchangedDocument>',
  signedContent: `<TaxInvoiceDocument><IssueID>${issueId}</IssueID></TaxInvoiceDocument>` +
    '<TaxInvoiceTradeSettlement><InvoicerParty><ID>1234567891</ID></InvoicerParty>' +
    `</TaxInvoiceTradeSettlement><TaxInvoiceTradeLineItem><NameText>${item}</NameText>` +
    '</TaxInvoiceTradeLineItem>',
  rootEndTag: '</TaxInvoice>',
});

const check = (signedDocument: string, approvalNumber = 'none'): SignedDocumentCheck =>
  ({ signedDocument, approvalNumber, supplierNumber: '1234567891', brokerNumber: null });

describe('the sandbox authority\'s thread', () => {
  it('answers each of many checks sent at once as the check made in place does', async () => {
    const checks: SignedDocumentCheck[] = [];
    for (let index = 0; index < 250; index += 1) {
      const approvalNumber = `2026112041000000${String(index).padStart(8, '0')}`;
      const item = `품목 ${index} &lt;&amp;&gt; "'`;
      const signed = (await signXmlDocument(document(approvalNumber, item), signer)).xml;
      // Every fifth document is changed after signing, every seventh sent with another number.
      const sent = index % 5 === 0 ? signed.replace(`품목 ${index}`, `품목 ${index + 1}`) : signed;
      checks.push(check(sent, index % 7 === 0 ? '202611204100000099999999' : approvalNumber));
    }
    const answers = await Promise.all(checks.map((item) => checkSignedDocument(item)));
    expect(answers).toEqual(checks.map((item) => signedXmlDefect(item)));
    expect(answers[1]).toBeNull();
    expect(answers.filter((answer) => answer === null)).toHaveLength(172);
    expect(answers[5]).toBe('The signature is not valid: the signed content changed.');
    expect(answers[7]).toBe('The signed IssueID is not the approval number sent with the ' +
      'document.');
  });

  it('answers every check of a thread that exits as unreachable, and starts a new thread ' +
    'for the next', async () => {
    const authority = createAuthorityChecks(SCRIPTED);
    const first = await authority.check(check('first'));
    const lost = await Promise.allSettled([authority.check(check('exit')),
      authority.check(check('beside it'))]);
    expect(lost.map((outcome) => outcome.status)).toEqual(['rejected', 'rejected']);
    for (const outcome of lost) {
      expect((outcome as PromiseRejectedResult).reason).toBeInstanceOf(AuthorityUnreachable);
    }
    const next = await authority.check(check('next'));
    expect(next).toMatch(/^next checked by thread \d+$/);
    expect(next!.split(' ').at(-1)).not.toBe(first!.split(' ').at(-1));
  });

  it('fails only the check that throws, not the others of its batch', async () => {
    const authority = createAuthorityChecks(SCRIPTED);
    const outcomes = await Promise.allSettled(['one', 'throw', 'two']
      .map((name) => authority.check(check(name))));
    expect(outcomes[0]).toMatchObject({ status: 'fulfilled',
      value: expect.stringMatching(/^one checked/) });
    expect(outcomes[1]).toMatchObject({ status: 'rejected' });
    const reason = (outcomes[1] as PromiseRejectedResult).reason as Error;
    expect(reason).not.toBeInstanceOf(AuthorityUnreachable);
    expect(reason.message).toContain('scripted failure');
    expect(outcomes[2]).toMatchObject({ status: 'fulfilled',
      value: expect.stringMatching(/^two checked/) });
  });

  it('answers the checks waiting on a thread that cannot start as unreachable, and tries ' +
    'again for the next', async () => {
    const authority = createAuthorityChecks(FAILING);
    for (let attempt = 0; attempt < 2; attempt += 1) {
      const outcomes = await Promise.allSettled([authority.check(check('a')),
        authority.check(check('b'))]);
      for (const outcome of outcomes) {
        expect((outcome as PromiseRejectedResult).reason).toBeInstanceOf(AuthorityUnreachable);
      }
    }
  });

  it('makes the sandbox answer unavailable when its authority cannot be reached', async () => {
    const sandbox = createSandboxTransmitter({ latencyMs: 0,
      authority: createAuthorityChecks(FAILING) });
    expect(await sandbox.transmit({ issuanceKey: 'txi_unreachable', writeDate: '2026-11-20',
      supplierNumber: '1234567891', recipientNumber: '2208162517',
      approvalNumber: '202611204100000000000001', signedDocument: '<TaxInvoice/>',
      signature: 'c2ln', certificate: signer.certificate.toString('base64') },
    new AbortController().signal)).toEqual({ kind: 'unavailable' });
  });
});
