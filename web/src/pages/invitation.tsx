import { useEffect, useState } from 'preact/hooks';
import { validationErrors, type FieldErrors } from '../components/field.js';
import { PublicField } from '../components/public-field.js';
import { translateApiMessages } from '../i18n/api-messages.js';
import type { Language, Words } from '../i18n/index.js';
import { accounts } from '../mail-api.js';
import { troubleOf, type Trouble } from '../session.js';

interface Props {
  words: Words;
  language: Language;
  /** The token of the mail's link, already taken out of the address. */
  token: string;
  onTrouble: (trouble: Trouble) => void;
  /** The API signed this browser in: the app loads who this is. */
  onSignedIn: () => Promise<void>;
  /** Leaves the link's page for the sign-in. */
  onLeave: () => void;
}

type Invited = { firstname: string; lastname: string; tenant: { name: string }; inviter: { firstname: string; lastname: string } | null };

/**
 * "Accept the invitation", reached from the mail's link: first who it is for ("Are you Mia
 * Muster?"), so that a forwarded or mistyped invitation is not taken over; then a username and a
 * password, and signed in.
 */
export function InvitationPage({ words, language, token, onTrouble, onSignedIn, onLeave }: Props) {
  const [invited, setInvited] = useState<Invited | null>(null);
  const [refusal, setRefusal] = useState<string[] | null>(null);
  const [answer, setAnswer] = useState<'yes' | 'no' | null>(null);
  const [username, setUsername] = useState('');
  const [password, setPassword] = useState('');
  const [confirmation, setConfirmation] = useState('');
  const [errors, setErrors] = useState<FieldErrors>({});
  const [busy, setBusy] = useState(false);

  /** A 422 about the token ends the page with its message; other field messages go beside their fields. */
  const refused = (result: { error?: unknown; response: Response }): void => {
    const fields = validationErrors(result.response, result.error);
    if (fields?.token) return setRefusal(fields.token);
    if (fields) return setErrors(fields);
    onTrouble(troubleOf(result.response, result.error));
  };

  useEffect(() => {
    void accounts
      .checkInvitation(token)
      .then((result) => (result.data ? setInvited(result.data.data) : refused(result)))
      .catch(() => onTrouble({ kind: 'failed', status: 0 }));
  }, [token]);

  const submit = async (event: Event) => {
    event.preventDefault();
    setBusy(true);
    try {
      const result = await accounts.acceptInvitation({ token, username, password, password_confirmation: confirmation });
      if (result.data) return await onSignedIn();
      refused(result);
    } catch {
      onTrouble({ kind: 'failed', status: 0 });
    } finally {
      setBusy(false);
    }
  };

  const heading = (
    <h1 id="invitation-title" tabIndex={-1}>
      {words.invitationTitle}
    </h1>
  );
  const back = (
    <p>
      <a
        href="#/"
        onClick={(event) => {
          event.preventDefault();
          onLeave();
        }}
      >
        {words.backToLogin}
      </a>
    </p>
  );
  if (refusal) {
    return (
      <section class="card" aria-labelledby="invitation-title">
        {heading}
        <p class="error" role="alert">
          {translateApiMessages(refusal, language)}
        </p>
        {back}
      </section>
    );
  }
  if (!invited) return <p aria-busy="true">…</p>;
  const name = `${invited.firstname} ${invited.lastname}`;
  const intro = invited.inviter ? words.invitedBy(`${invited.inviter.firstname} ${invited.inviter.lastname}`, invited.tenant.name) : words.invitedTo(invited.tenant.name);
  if (answer !== 'yes') {
    return (
      <section class="card" aria-labelledby="invitation-title">
        {heading}
        <p>{intro}</p>
        <p>
          <strong>{words.areYou(name)}</strong>
        </p>
        <div class="actions">
          <button type="button" onClick={() => setAnswer('yes')}>
            {words.yesThatIsMe}
          </button>
          <button type="button" class="secondary-dark" onClick={() => setAnswer('no')}>
            {words.noNotMe}
          </button>
        </div>
        {answer === 'no' && (
          <>
            <p class="notice" role="status">
              {words.notMeExplained}
            </p>
            {back}
          </>
        )}
      </section>
    );
  }
  return (
    <form class="card" onSubmit={submit} aria-labelledby="invitation-title">
      {heading}
      <p>{intro}</p>
      <p class="muted">{words.chooseLogin}</p>
      <PublicField label={words.username} name="username" autocomplete="username" value={username} errors={errors.username} language={language} onInput={setUsername} />
      <PublicField label={words.password} name="password" type="password" autocomplete="new-password" value={password} errors={errors.password} language={language} onInput={setPassword} />
      <PublicField
        label={words.repeatPassword}
        name="password_confirmation"
        type="password"
        autocomplete="new-password"
        value={confirmation}
        errors={errors.password_confirmation}
        language={language}
        onInput={setConfirmation}
      />
      {Object.entries(errors)
        .filter(([field]) => !['username', 'password', 'password_confirmation'].includes(field))
        .map(([field, messages]) => (
          <p key={field} class="error" role="alert">
            {translateApiMessages(messages, language)}
          </p>
        ))}
      <div class="actions">
        <button type="submit" disabled={busy}>
          {words.createMyLogin}
        </button>
      </div>
    </form>
  );
}
