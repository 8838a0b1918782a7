import type { AddressInfo } from 'node:net';
import { simpleParser, type ParsedMail } from 'mailparser';
import { SMTPServer } from 'smtp-server';
import { waitFor } from './wait.js';

/** A mail as the SMTP server received it: the envelope and the parsed message. */
export interface ReceivedMail {
  envelope: { from: string; to: string[] };
  parsed: ParsedMail;
  /** The whole message as sent. */
  raw: string;
}

/** How the sink answers a recipient: accept, or refuse with an SMTP code (550 permanent, 450 for now). */
export type RecipientAnswer = 'accept' | { code: number; message: string };

export interface SmtpSink {
  /** `smtp://user:secret@127.0.0.1:<port>`: SMTP_URL for the service. */
  url: string;
  port: number;
  mails: ReceivedMail[];
  /** How many SMTP transactions were refused (at RCPT TO). */
  refusals: number;
  /** Answers for recipient addresses (lower case); every other address is accepted. */
  answers: Map<string, RecipientAnswer>;
  /** Waits until at least `count` mails arrived (or `check` holds); fails after `timeoutMs`. */
  waitForMails(count: number, timeoutMs?: number): Promise<ReceivedMail[]>;
  /** The mails sent to this address. */
  to(address: string): ReceivedMail[];
  close(): Promise<void>;
}

/**
 * A real SMTP server on 127.0.0.1 (the smtp-server package), with a login, that keeps and parses
 * (mailparser) every mail it is given. The service's tests send through it: never a mock transport.
 */
export async function startSmtpSink(options: { user?: string; password?: string } = {}): Promise<SmtpSink> {
  const user = options.user ?? 'mailer';
  const password = options.password ?? 's3cret-pass';
  const mails: ReceivedMail[] = [];
  const answers = new Map<string, RecipientAnswer>();
  const sink = { refusals: 0 };
  const server = new SMTPServer({
    secure: false,
    disabledCommands: ['STARTTLS'],
    // Plain-text login over an unencrypted local connection, as a test sink allows.
    allowInsecureAuth: true,
    authOptional: false,
    logger: false,
    size: 30 * 1024 * 1024,
    onAuth(auth, _session, callback) {
      if (auth.username === user && auth.password === password) callback(null, { user });
      else callback(new Error('Invalid username or password'));
    },
    onRcptTo(address, _session, callback) {
      const answer = answers.get(address.address.toLowerCase());
      if (!answer || answer === 'accept') return callback();
      sink.refusals += 1;
      const err = new Error(answer.message) as Error & { responseCode: number };
      err.responseCode = answer.code;
      callback(err);
    },
    onData(stream, session, callback) {
      const chunks: Buffer[] = [];
      stream.on('data', (chunk: Buffer) => chunks.push(chunk));
      stream.on('end', () => {
        const raw = Buffer.concat(chunks).toString('utf8');
        simpleParser(raw)
          .then((parsed) => {
            mails.push({
              envelope: {
                from: session.envelope.mailFrom ? session.envelope.mailFrom.address : '',
                to: session.envelope.rcptTo.map((to) => to.address),
              },
              parsed,
              raw,
            });
            callback();
          })
          .catch((err: Error) => callback(err));
      });
    },
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  server.on('error', () => undefined);
  const port = (server.server.address() as AddressInfo).port;
  return {
    url: `smtp://${user}:${password}@127.0.0.1:${port}`,
    port,
    mails,
    get refusals() {
      return sink.refusals;
    },
    answers,
    async waitForMails(count, timeoutMs = 10_000) {
      await waitFor(() => mails.length >= count, timeoutMs, 20);
      return mails;
    },
    to: (address) => mails.filter((mail) => mail.envelope.to.some((to) => to.toLowerCase() === address.toLowerCase())),
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
