import net, { type AddressInfo } from 'node:net';
import { SMTPServer } from 'smtp-server';

// A real SMTP server on a random local port that keeps every message it accepts, for tests of
// the mail outbox. It takes any user and password without TLS (the tests' SMTP_URL carries
// them), refuses recipients with 550 while `refuseRecipients` is set, and answers the end of a
// message `replyDelayMs` late (a slow server). startSilentSmtpServer is a server that accepts
// connections and never says a word (a black hole).

type ReceivedMail = {
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
  replyDelayMs: number;
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
function decodeParts(raw: string): string[] {
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
function decodeSubject(raw: string): string {
  const headers = raw.slice(0, raw.indexOf('\r\n\r\n')).replace(/\r\n[ \t]+/g, ' ');
  const value = /^subject:\s*(.*)$/im.exec(headers)?.[1] ?? '';
  return value.replace(/\?=\s+=\?/g, '?==?').replace(/=\?utf-8\?([bq])\?([^?]*)\?=/gi,
    (_match, kind: string, text: string) => kind.toLowerCase() === 'b'
      ? Buffer.from(text, 'base64').toString('utf8')
      : decodeQuotedPrintable(text.replace(/_/g, ' ')));
}

export async function startSmtpSink(): Promise<SmtpSink> {
  const sink = { received: [] as ReceivedMail[], refuseRecipients: false, replyDelayMs: 0 };
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
        setTimeout(callback, sink.replyDelayMs);
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

export type SilentSmtpServer = {
  url: string;
  // Connections open now, and the most that were open at once.
  open: number;
  openMax: number;
  // Connections the client closed.
  closedByClient: number;
  close(): Promise<void>;
};

export async function startSilentSmtpServer(): Promise<SilentSmtpServer> {
  const sockets = new Set<net.Socket>();
  const state = { open: 0, openMax: 0, closedByClient: 0 };
  const server = net.createServer((socket) => {
    sockets.add(socket);
    state.open += 1;
    state.openMax = Math.max(state.openMax, state.open);
    socket.on('error', () => {});
    socket.on('close', () => {
      sockets.delete(socket);
      state.open -= 1;
      state.closedByClient += 1;
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return Object.assign(state, {
    url: `smtp://etax:smtp-secret@127.0.0.1:${port}`,
    close: () => new Promise<void>((resolve) => {
      for (const socket of sockets) socket.destroy();
      server.close(() => resolve());
    }),
  });
}
