import nodemailer from 'nodemailer';

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
  // Resolves with the Message-ID once the server accepted the mail; rejects otherwise.
  send(message: MailMessage): Promise<{ messageId: string }>;
  close(): void;
};

// Every SMTP step has a bound, well inside the send job's expiry (send-job.ts): a server that
// does not answer costs one attempt, never a stuck worker.
const SMTP_CONNECTION_TIMEOUT_MS = 10_000;
const SMTP_GREETING_TIMEOUT_MS = 10_000;
const SMTP_SOCKET_TIMEOUT_MS = 30_000;

export function createSmtpTransport(options: { url: string; from: string }): MailTransport {
  const transporter = nodemailer.createTransport({
    url: options.url,
    connectionTimeout: SMTP_CONNECTION_TIMEOUT_MS,
    greetingTimeout: SMTP_GREETING_TIMEOUT_MS,
    socketTimeout: SMTP_SOCKET_TIMEOUT_MS,
    // nodemailer logs nothing unless asked; mails carry one-time links and must stay out of logs.
    logger: false,
    debug: false,
  });
  return {
    async send(message) {
      const info = await transporter.sendMail({
        from: options.from,
        to: message.to,
        ...(message.cc?.length ? { cc: [...message.cc] } : {}),
        ...(message.attachments?.length ? { attachments: message.attachments.map(
          (attachment) => ({ ...attachment })) } : {}),
        subject: message.subject,
        text: message.text,
        ...(message.html === null ? {} : { html: message.html }),
      });
      return { messageId: info.messageId };
    },
    close: () => transporter.close(),
  };
}
