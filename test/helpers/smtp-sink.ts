import type { AddressInfo } from 'node:net';
import { SMTPServer } from 'smtp-server';

// A real SMTP server on a random local port that keeps every message it accepts, for tests of
// the mail outbox. It takes any user and password without TLS (the tests' SMTP_URL carries
// them), and refuses recipients with 550 while `refuseRecipients` is set.

export type ReceivedMail = {
  from: string;
  to: string[];
  user: string | null;
  raw: string;
  subject: string;
  // The decoded text of every MIME part (text and HTML).
  parts: string[];
};

export type SmtpSink = {
  port: number;
  url: string;
  received: ReceivedMail[];
  refuseRecipients: boolean;
  close(): Promise<void>;
};

function decodeQuotedPrintable(text: string): string {
  const joined = text.replace(/=\r?\n/g, '');
  const bytes: number[] = [];
  for (let index = 0; index < joined.length; index += 1) {
    const hex = joined.slice(index + 1, index + 3);
    if (joined[index] === '=' && /^[0-9A-F]{2}$/i.test(hex)) {
      bytes.push(parseInt(hex, 16));
      index += 2;
    } else {
      bytes.push(...Buffer.from(joined[index]!, 'utf8'));
    }
  }
  return Buffer.from(bytes).toString('utf8');
}

function decodeBody(headers: string, body: string): string {
  const encoding = /content-transfer-encoding:\s*(\S+)/i.exec(headers)?.[1]?.toLowerCase();
  if (encoding === 'base64') return Buffer.from(body.replace(/\s+/g, ''), 'base64').toString();
  if (encoding === 'quoted-printable') return decodeQuotedPrintable(body);
  return body;
}

// Enough MIME for our own mails: one level of multipart, base64 or quoted-printable parts.
export function decodeParts(raw: string): string[] {
  const headerEnd = raw.indexOf('\r\n\r\n');
  const headers = raw.slice(0, headerEnd);
  const boundary = /boundary="?([^";\r\n]+)"?/i.exec(headers)?.[1];
  if (boundary === undefined) return [decodeBody(headers, raw.slice(headerEnd + 4))];
  return raw.split(`--${boundary}`).slice(1, -1).map((part) => {
    const end = part.indexOf('\r\n\r\n');
    return decodeBody(part.slice(0, end), part.slice(end + 4));
  });
}

// The Subject header with its RFC 2047 encoded words decoded.
export function decodeSubject(raw: string): string {
  const headers = raw.slice(0, raw.indexOf('\r\n\r\n')).replace(/\r\n[ \t]+/g, ' ');
  const value = /^subject:\s*(.*)$/im.exec(headers)?.[1] ?? '';
  return value.replace(/\?=\s+=\?/g, '?==?').replace(/=\?utf-8\?([bq])\?([^?]*)\?=/gi,
    (_match, kind: string, text: string) => kind.toLowerCase() === 'b'
      ? Buffer.from(text, 'base64').toString('utf8')
      : decodeQuotedPrintable(text.replace(/_/g, ' ')));
}

export async function startSmtpSink(): Promise<SmtpSink> {
  const sink = { received: [] as ReceivedMail[], refuseRecipients: false };
  const server = new SMTPServer({
    secure: false,
    disabledCommands: ['STARTTLS'],
    allowInsecureAuth: true,
    authOptional: true,
    logger: false,
    onAuth(auth, _session, callback) {
      callback(null, { user: auth.username });
    },
    onRcptTo(_address, _session, callback) {
      if (!sink.refuseRecipients) return callback();
      const error = Object.assign(new Error('Mailbox unavailable'), { responseCode: 550 });
      return callback(error);
    },
    onData(stream, session, callback) {
      const chunks: Buffer[] = [];
      stream.on('data', (chunk: Buffer) => chunks.push(chunk));
      stream.on('end', () => {
        const raw = Buffer.concat(chunks).toString('utf8');
        sink.received.push({
          from: session.envelope.mailFrom ? session.envelope.mailFrom.address : '',
          to: session.envelope.rcptTo.map((recipient) => recipient.address),
          user: typeof session.user === 'string' ? session.user : null,
          raw, subject: decodeSubject(raw), parts: decodeParts(raw),
        });
        callback();
      });
    },
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.server.address() as AddressInfo;
  return Object.assign(sink, {
    port,
    url: `smtp://etax:smtp-secret@127.0.0.1:${port}`,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  });
}
