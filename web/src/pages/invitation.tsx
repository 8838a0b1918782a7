import { useEffect, useState } from 'preact/hooks';
import { Field, validationErrors } from '../components/field.js';
import { PublicCard, PublicForm, RepeatPasswordField } from '../components/public-form.js';
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
  /** The API signed this browser in: the app loads who this is, and announces `announcement` on the page it shows. */
  onSignedIn: (announcement?: string) => Promise<void>;
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

  useEffect(() => {
    void accounts
      .checkInvitation(token)
      .then((result) => {
        if (result.data) return setInvited(result.data.data);
        const refused = validationErrors(result.response, result.error);
        if (refused?.token) setRefusal(refused.token);
        else onTrouble(troubleOf(result.response, result.error));
      })
      .catch(() => onTrouble({ kind: 'failed', status: 0 }));
  }, [token]);

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
      <PublicCard id="invitation-title" title={words.invitationTitle}>
        <p class="error" role="alert">
          {translateApiMessages(refusal, language)}
        </p>
        {back}
      </PublicCard>
    );
  }
  if (!invited) return <p aria-busy="true">…</p>;
  const name = `${invited.firstname} ${invited.lastname}`;
  const intro = invited.inviter ? words.invitedBy(`${invited.inviter.firstname} ${invited.inviter.lastname}`, invited.tenant.name) : words.invitedTo(invited.tenant.name);
  if (answer !== 'yes') {
    return (
      <PublicCard id="invitation-title" title={words.invitationTitle}>
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
      </PublicCard>
    );
  }
  return (
    <PublicForm
      id="invitation-title"
      title={words.invitationTitle}
      language={language}
      onTrouble={onTrouble}
      send={() => accounts.acceptInvitation({ token, username, password, password_confirmation: confirmation })}
      onSent={() => onSignedIn(words.loginCreated)}
      onTokenRefused={setRefusal}
      fields={['username', 'password', 'password_confirmation']}
      submitLabel={words.createMyLogin}
    >
      {(errors) => (
        <>
          <p>{intro}</p>
          <p class="muted">{words.chooseLogin}</p>
          <Field label={words.username} name="username" autocomplete="username" required value={username} errors={errors.username} language={language} onInput={setUsername} />
          <Field label={words.password} name="password" type="password" autocomplete="new-password" required value={password} errors={errors.password} language={language} onInput={setPassword} />
          <RepeatPasswordField words={words} language={language} value={confirmation} errors={errors.password_confirmation} onInput={setConfirmation} />
        </>
      )}
    </PublicForm>
  );
}
