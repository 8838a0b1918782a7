import { Option, type Command } from 'commander';
import type { MailState } from '../db/types.js';
import { toApiTimestamp, toDbTimestamp } from '../lib/time.js';
import { listOutbox, readOutboxMail, releaseHeldMail } from '../modules/mail/rules.js';
import { CliError, openTenant, withStorage } from './context.js';
import { idOption } from './groups.js';

const STATES: readonly MailState[] = ['held', 'queued', 'sent', 'failed', 'expired'];

/** Tabs and line breaks would break the one line a value gets; other control characters would drive the terminal. */
const cell = (value: string) => value.replace(/[\u0000-\u001f\u007f-\u009f]+/g, ' ');
/** The text part as the terminal should show it: its lines and tabs, no other control character. */
const printable = (text: string) => text.replace(/\r\n?/g, '\n').replace(/[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/g, '');

/** `--since`: a day (`2026-12-01`, midnight UTC) or a moment (`2026-12-01T08:00:00Z`). */
function momentOption(value: string): string {
  const day = /^\d{4}-\d{2}-\d{2}$/.test(value);
  const moment = new Date(day ? `${value}T00:00:00Z` : value);
  if (!/^\d{4}-\d{2}-\d{2}/.test(value) || Number.isNaN(moment.getTime())) {
    throw new CliError(`--since must be a date (2026-12-01) or a moment (2026-12-01T08:00:00Z), not "${value}"`);
  }
  return toDbTimestamp(moment);
}

/** The outbox at the command line: what was sent, and what waits (held without SMTP_URL). */
export function registerMailCommands(program: Command): void {
  const mail = program.command('mail').description("a tenant's outbox: the mail the service sent or holds");

  mail
    .command('list <tenant>')
    .description('one line per mail, oldest first: id, state, created_at, to, subject (tab-separated)')
    .addOption(new Option('--state <state>', 'only mail in this state').choices(STATES))
    .action((tenant: string, options: { state?: MailState }) =>
      withStorage(async (storage) => {
        const { db } = await openTenant(storage, tenant);
        for await (const row of listOutbox(db, options.state ?? null)) {
          process.stdout.write(`${[String(row.id), row.state, toApiTimestamp(row.created_at), cell(row.to_address), cell(row.subject)].join('\t')}\n`);
        }
      }),
    );

  mail
    .command('show <tenant> <id>')
    .description('the headers and the text part of a mail (follow a link in a held mail from here)')
    .action((tenant: string, id: string) =>
      withStorage(async (storage, config) => {
        const { db } = await openTenant(storage, tenant);
        const found = await readOutboxMail(db, idOption(id, 'id'));
        if (!found) throw new CliError(`mail ${id} not found in tenant "${tenant}"`);
        const address = (name: string, email: string) => (name === '' ? email : `${name} <${email}>`);
        const headers = [
          ['From', address(found.from_name, config.mail.from.address)],
          ['To', address(found.to_name, found.to_address)],
          ...(found.reply_to ? [['Reply-To', found.reply_to]] : []),
          ['Subject', found.subject],
          ['Date', new Date(toApiTimestamp(found.sent_at ?? found.created_at)).toUTCString()],
          ['Message-ID', found.message_id_header],
        ];
        process.stdout.write(`${headers.map(([name, value]) => `${name}: ${cell(value!)}`).join('\n')}\n\n${printable(found.text_body)}`);
        if (!found.text_body.endsWith('\n')) process.stdout.write('\n');
      }),
    );

  mail
    .command('release <tenant>')
    .description('queue held and expired mail (created since --since; default all) to be sent by the running servers')
    .option('--since <moment>', 'only mail created since then: a date (2026-12-01) or a moment (2026-12-01T08:00:00Z)')
    .action((tenant: string, options: { since?: string }) =>
      withStorage(async (storage, config) => {
        const since = options.since === undefined ? null : momentOption(options.since);
        const { db } = await openTenant(storage, tenant);
        const count = await releaseHeldMail(db, since);
        const later = config.mail.smtpUrl === null ? '; SMTP_URL is not set here: a server with SMTP_URL sends them' : '; the servers send them within 5 minutes';
        process.stdout.write(`queued ${count} mail(s)${count > 0 ? later : ''}\n`);
      }),
    );
}
