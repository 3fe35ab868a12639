import net from 'node:net';
import type SMTPTransport from 'nodemailer/lib/smtp-transport/index.js';

// The one way etax sends mail: SMTP through nodemailer, configured by SMTP_URL
// (docs/operations.md § Mail). smtp://user:pass@host:587 upgrades to TLS with STARTTLS when the
// server offers it; smtps://user:pass@host:465 uses TLS from the start.

export type MailAttachment = { filename: string; contentType: string; content: Buffer };

type MailMessage = {
  to: string;
  cc?: readonly string[];
  subject: string;
  text: string;
  html: string | null;
  attachments?: readonly MailAttachment[];
};

export type MailTransport = {
  // Resolves with the Message-ID once the server accepted the mail; rejects otherwise. When
  // `signal` aborts, the connection is destroyed and the send rejects at once: nothing of the
  // attempt reaches the server afterwards.
  send(message: MailMessage, signal: AbortSignal): Promise<{ messageId: string }>;
  close(): void;
};

// Every SMTP step has a bound, so a server that does not answer costs one attempt, never a
// stuck worker; the attempt as a whole is bounded by the caller's signal (send-job.ts), since a
// server may answer each step just inside these and still take minutes.
const SMTP_CONNECTION_TIMEOUT_MS = 10_000;
const SMTP_GREETING_TIMEOUT_MS = 10_000;
const SMTP_SOCKET_TIMEOUT_MS = 30_000;

export class MailAttemptAborted extends Error {
  readonly code = 'EDEADLINE';
}

export function createSmtpTransport(options: { url: string; from: string }): MailTransport {
  const settings: SMTPTransport.Options = {
    url: options.url,
    connectionTimeout: SMTP_CONNECTION_TIMEOUT_MS,
    greetingTimeout: SMTP_GREETING_TIMEOUT_MS,
    socketTimeout: SMTP_SOCKET_TIMEOUT_MS,
    // nodemailer logs nothing unless asked; mails carry one-time links and must stay out of logs.
    logger: false,
    debug: false,
  };
  return {
    async send(message, signal) {
      // nodemailer (some 15 MB resident) loads with the first mail, not at every start.
      const { default: nodemailer } = await import('nodemailer');
      signal.throwIfAborted();
      // One connection per mail, on a socket of ours (nodemailer connects it, and starts TLS on
      // it for smtps), so that the deadline can destroy it.
      let socket: net.Socket | null = null;
      const transporter = nodemailer.createTransport({
        ...settings,
        getSocket(_options, callback) {
          if (signal.aborted) {
            return callback(new MailAttemptAborted('aborted before connecting'), {});
          }
          socket = new net.Socket();
          callback(null, { socket });
        },
      });
      let abort = () => {};
      const aborted = new Promise<never>((_resolve, reject) => {
        abort = () => {
          (socket as net.Socket | null)?.destroy();
          reject(new MailAttemptAborted('the mail attempt passed its deadline'));
        };
      });
      signal.addEventListener('abort', abort, { once: true });
      const sending = transporter.sendMail({
        from: options.from,
        to: message.to,
        ...(message.cc?.length ? { cc: [...message.cc] } : {}),
        ...(message.attachments?.length ? { attachments: message.attachments.map(
          (attachment) => ({ ...attachment })) } : {}),
        subject: message.subject,
        text: message.text,
        ...(message.html === null ? {} : { html: message.html }),
      });
      // Its rejection after an abort is the destroyed socket's, already answered by the abort.
      sending.catch(() => {});
      try {
        const info = await Promise.race([aborted, sending]);
        return { messageId: info.messageId };
      } finally {
        signal.removeEventListener('abort', abort);
        transporter.close();
      }
    },
    // Nothing is held between mails: each one's connection ends with its send.
    close: () => {},
  };
}
