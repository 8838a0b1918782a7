import { useState } from 'preact/hooks';
import { validationErrors } from '../components/field.js';
import { dataOf, useApp } from '../context.js';
import { useLoad } from '../hooks.js';
import { translateApiMessages } from '../i18n/api-messages.js';
import { formatMoment } from '../i18n/index.js';
import { accounts } from '../mail-api.js';
import { newKey, troubleOf } from '../session.js';

type Person = { id: number; firstname: string; lastname: string; email: string | null };

/**
 * "Invite by e-mail" for a person without a login: a link with which they choose their own
 * username and password. Asked first; the answer names the address and until when it holds.
 */
export function InviteCard({ person, onInvited }: { person: Person; onInvited?: () => void }) {
  const app = useApp();
  const { words, language, session } = app;
  const [refusal, setRefusal] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  // One key per invitation asked for: a retry after a lost answer mails once.
  const [key, setKey] = useState(newKey);
  const email = person.email ?? '';
  const invite = async () => {
    // The API cannot say whether an invitation is open: the question says what a new one does to it.
    if (!confirm(`${words.confirmInvite(`${person.firstname} ${person.lastname}`, email)} ${words.earlierInvitationStops}`)) return;
    setBusy(true);
    setRefusal(null);
    try {
      const result = await accounts.invite(person.id, key);
      if (result.data) {
        setKey(newKey());
        app.announce(words.invitationSent(email, formatMoment(result.data.data.invitation.expires_at, language, session.timeZone)));
        return onInvited?.();
      }
      const errors = validationErrors(result.response, result.error);
      if (errors) setRefusal(translateApiMessages(Object.values(errors).flat(), language));
      else app.report(troubleOf(result.response, result.error));
    } finally {
      setBusy(false);
    }
  };
  return (
    <section class="card" aria-labelledby="invite-title">
      <h2 id="invite-title">{words.inviteByEmail}</h2>
      <p class="muted">{words.inviteHint(email)}</p>
      {refusal && (
        <p class="error" role="alert">
          {refusal}
        </p>
      )}
      <div class="actions">
        <button type="button" disabled={busy} onClick={() => void invite()}>
          {words.inviteByEmail}
        </button>
      </div>
    </section>
  );
}

/**
 * A warning when mail to the person's address fails (the mail server refused it), with the last
 * refusal and since when; whoever may change the person can mark the address as working again.
 * Read only for a person with an address: the page's second read at most.
 */
export function MailStatus({ person, mayChange }: { person: Person; mayChange: boolean }) {
  const app = useApp();
  const { words, language, session } = app;
  const [status, reload] = useLoad(
    async () => (person.email ? (dataOf(app, await accounts.emailStatus(person.id))?.data.email_status ?? null) : null),
    [person.id, person.email],
  );
  if (!person.email || status?.state !== 'failing') return null;
  const email = person.email;
  const clear = async () => {
    if (!confirm(words.confirmMarkMailWorking(email))) return;
    const result = await accounts.clearEmailStatus(person.id);
    if (!result.response.ok) return app.report(troubleOf(result.response, result.error));
    app.announce(words.mailMarkedWorking);
    reload();
  };
  return (
    <section class="card notice" aria-labelledby="mail-status-title">
      <h2 id="mail-status-title">{words.mailFailingTitle}</h2>
      <p>{words.mailFailing(email, status.since ? formatMoment(status.since, language, session.timeZone) : '')}</p>
      {status.last_error && (
        <p>
          {words.lastMailError}: <span class="muted">{status.last_error}</span>
        </p>
      )}
      {mayChange && (
        <div class="actions">
          <button type="button" class="secondary-dark" onClick={() => void clear()}>
            {words.markMailWorking}
          </button>
        </div>
      )}
    </section>
  );
}
