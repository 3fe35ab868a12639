// `etax sandbox certificate`, black-box as an operator runs it: it writes signCert.der and
// signPri.key into the --out folder, the key file opens with the password it prints (or the one
// given), the certificate carries the business's VID, made with the R of the key file, and comes
// from the etax Sandbox CA; and it refuses a number that fails the checksum, with `etax:` on
// stderr and no file written. It opens no database: DATA_DIR names a folder that must still not
// exist afterwards.
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync }
  from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { checkIdentity, readCertificate } from '../../src/domain/joint-certificate.ts';
import { isIssuedBySandboxCa } from '../../src/domain/sandbox-ca.ts';
import { decryptSigningKeyFile } from '../../src/domain/signing-key-file.ts';
import { runEtax } from '../helpers/cli.ts';

let folder: string;
let dataDir: string;

beforeAll(() => {
  folder = mkdtempSync(path.join(os.tmpdir(), 'etxs-'));
  dataDir = path.join(folder, 'data');
});
afterAll(() => {
  rmSync(folder, { recursive: true, force: true });
});

async function sandboxCertificate(args: string[]) {
  const result = await runEtax({ DATA_DIR: dataDir }, ['sandbox', 'certificate', ...args]);
  expect(existsSync(dataDir), 'the command opened a database').toBe(false);
  return result;
}

function readFiles(out: string) {
  return { signCert: readFileSync(path.join(out, 'signCert.der')),
    signPri: readFileSync(path.join(out, 'signPri.key')) };
}

describe.concurrent('etax sandbox certificate', () => {
  it('writes both files and prints the random password that opens the key file', async () => {
    const out = path.join(folder, 'printed', 'npki');
    const result = await sandboxCertificate(['--business-number', '1248100998', '--out', out]);
    expect(result.code, result.stderr).toBe(0);
    expect(result.stderr).toBe('');
    const password = /^password: (\S+)$/m.exec(result.stdout)?.[1];
    expect(password, result.stdout).toMatch(/^[\w-]{16}$/);
    const files = readFiles(out);
    const facts = readCertificate(files.signCert);
    expect(facts?.subject).toContain('(1248100998)');
    expect(facts?.issuerName).toBe('CN=etax Sandbox CA, OU=Sandbox, O=etax, C=KR');
    expect(facts?.keyUsages).toEqual(['digitalSignature', 'nonRepudiation']);
    expect(isIssuedBySandboxCa(files.signCert)).toBe(true);
    const decrypted = decryptSigningKeyFile(files.signPri, password!);
    expect(decrypted.kind).toBe('decrypted');
    // The key file's R and the certificate's VID prove this number, and no other.
    const randomNumber = decrypted.kind === 'decrypted' ? decrypted.randomNumber : null;
    expect(randomNumber).toHaveLength(20);
    expect(checkIdentity(facts!, randomNumber, '1248100998')).toBe('match');
    expect(checkIdentity(facts!, randomNumber, '1234567891')).toBe('mismatch');
    expect(decryptSigningKeyFile(files.signPri, `${password}x`).kind).toBe('wrongPassword');
    // A key file is readable by its owner only, as CAs' software writes it.
    expect(statSync(path.join(out, 'signPri.key')).mode & 0o777).toBe(0o600);
  });

  it('takes --password, --name and hyphens, and prints JSON with --json', async () => {
    const out = path.join(folder, 'given');
    const result = await sandboxCertificate(['--business-number', '124-81-00998', '--out', out,
      '--password', '샌드박스-Pass 1!', '--name', '주식회사 이택스', '--json']);
    expect(result.code, result.stderr).toBe(0);
    const printed = JSON.parse(result.stdout) as Record<string, string>;
    expect(printed).toMatchObject({ password: '샌드박스-Pass 1!',
      signCert: path.join(out, 'signCert.der'), signPri: path.join(out, 'signPri.key') });
    expect(printed.subject).toContain('주식회사 이택스(1248100998)');
    const days = (Date.parse(printed.notAfter!) - Date.parse(printed.notBefore!)) / 86_400_000;
    expect(days).toBe(365);
    const files = readFiles(out);
    expect(decryptSigningKeyFile(files.signPri, '샌드박스-Pass 1!').kind).toBe('decrypted');
  });

  it.each([
    ['a number whose check digit is wrong', '1248100997', /check digit is wrong/],
    ['a number of nine digits', '124810099', /must be ten digits/],
    ['a number with letters', '12481OO998', /must be ten digits/],
  ])('refuses %s with etax: on stderr, exit 2 and no file', async (_name, number, message) => {
    const out = path.join(folder, `refused-${number}`);
    const result = await sandboxCertificate(['--business-number', number, '--out', out]);
    expect(result.code).toBe(2);
    expect(result.stdout).toBe('');
    expect(result.stderr).toMatch(/^etax: --business-number /);
    expect(result.stderr).toMatch(message);
    expect(existsSync(out)).toBe(false);
  });

  it('refuses an empty password and never overwrites a certificate', async () => {
    const empty = await sandboxCertificate(['--business-number', '1248100998', '--out',
      path.join(folder, 'empty'), '--password', '']);
    expect(empty.code).toBe(2);
    expect(empty.stderr).toMatch(/^etax: --password must be 1 to 128 characters/);
    const out = path.join(folder, 'existing');
    mkdirSync(out);
    writeFileSync(path.join(out, 'signPri.key'), 'a real key');
    const result = await sandboxCertificate(['--business-number', '1248100998', '--out', out]);
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/signPri\.key exists/);
    expect(readFileSync(path.join(out, 'signPri.key'), 'utf8')).toBe('a real key');
    expect(existsSync(path.join(out, 'signCert.der'))).toBe(false);
  });
});
