/* eslint-disable no-restricted-syntax --
   a command without a platform: the certificate is valid from the system's now. */
import { randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import {
  hasAssignablePrefix,
  hasValidChecksum,
  LOWEST_ASSIGNED_PREFIX,
  normalizeBusinessRegistrationNumber,
} from '../domain/business-registration-number.ts';
import { issueSandboxCertificate } from '../domain/sandbox-certificate.ts';
import { KEY_FILE_PASSWORD_LENGTH_MAX } from '../domain/key-file-limits.ts';
import { CliError, printResult } from './output.ts';
import { hasControlCharacter } from '../domain/text.ts';

// `etax sandbox certificate`: a joint certificate from the etax Sandbox CA for one business,
// written as the two files of an NPKI folder, for registering an issuer with a test key
// (docs/sandbox.md). It needs no database and no configuration: it only writes files.

const CERTIFICATE_FILE = 'signCert.der';
const KEY_FILE = 'signPri.key';
// 12 random bytes are 16 base64url characters: letters, digits, '-' and '_', easy to paste.
const GENERATED_PASSWORD_BYTES = 12;
// The same bound as an issuer's organization name (docs/issuers.md).
const NAME_LENGTH_MAX = 100;

type SandboxCertificateOptions = {
  businessNumber: string;
  out: string;
  password?: string;
  name: string;
  json?: boolean;
};

function parseBusinessNumber(raw: string): string {
  const digits = normalizeBusinessRegistrationNumber(raw.trim());
  if (digits === null) {
    throw new CliError('--business-number must be ten digits (hyphens allowed), ' +
      `e.g. 124-81-00998; got "${raw}"`);
  }
  if (!hasValidChecksum(digits)) {
    throw new CliError(`--business-number ${raw} is not a business registration number: ` +
      'its check digit is wrong');
  }
  if (!hasAssignablePrefix(digits)) {
    throw new CliError(`--business-number ${raw} is not a business registration number: ` +
      `its first three digits are below ${LOWEST_ASSIGNED_PREFIX}, which are never assigned`);
  }
  return digits;
}

function parseText(option: string, raw: string, lengthMax: number): string {
  if (raw.length === 0 || raw.length > lengthMax || hasControlCharacter(raw)) {
    throw new CliError(`${option} must be 1 to ${lengthMax} characters on one line`);
  }
  return raw;
}

// The files are never overwritten: --out could name a folder that holds a real certificate.
function targetFiles(folder: string) {
  const files = { signCert: path.join(folder, CERTIFICATE_FILE),
    signPri: path.join(folder, KEY_FILE) };
  for (const file of Object.values(files)) {
    if (existsSync(file)) throw new CliError(`${file} exists; choose another --out folder`);
  }
  return files;
}

export async function writeSandboxCertificate(options: SandboxCertificateOptions) {
  const businessRegistrationNumber = parseBusinessNumber(options.businessNumber);
  const organizationName = parseText('--name', options.name.trim(), NAME_LENGTH_MAX);
  const password = options.password === undefined
    ? randomBytes(GENERATED_PASSWORD_BYTES).toString('base64url')
    : parseText('--password', options.password, KEY_FILE_PASSWORD_LENGTH_MAX);
  const folder = path.resolve(options.out);
  const files = targetFiles(folder);
  const certificate = await issueSandboxCertificate({ businessRegistrationNumber,
    organizationName, password, now: new Date() });
  await mkdir(folder, { recursive: true });
  await writeFile(files.signCert, certificate.signCert, { flag: 'wx' });
  await writeFile(files.signPri, certificate.signPri, { flag: 'wx', mode: 0o600 });
  const result = { ...files, password, subject: certificate.subject,
    notBefore: certificate.notBefore.toISOString(),
    notAfter: certificate.notAfter.toISOString() };
  printResult(Boolean(options.json), result, [
    `wrote ${files.signCert} and ${files.signPri}`,
    `subject:  ${result.subject}`,
    `valid:    ${result.notBefore} to ${result.notAfter}`,
    `password: ${password}`,
  ].join('\n'));
}
