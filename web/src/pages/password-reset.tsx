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
  /** The link was refused: a new one is asked for. */
  onNewLink: () => void;
  /** Leaves the link's page for the app (signed in, if this browser is) or the sign-in. */
  onLeave: () => void;
}

/**
 * Whether the link still works, before anyone types a password (see `accounts.checkResetLink`).
 * Null: the link is live (or the API could not say, and the form will).
 */
async function deadLinkMessages(token: string, onTrouble: (trouble: Trouble) => void): Promise<string[] | null> {
  const result = await accounts.checkResetLink(token);
  const refused = validationErrors(result.response, result.error);
  if (refused?.token) return refused.token;
  if (!refused) onTrouble(troubleOf(result.response, result.error));
  return null;
}

/** "Set a new password", reached from the mail's link: checked first, then a password twice, then signed in. */
export function ResetPasswordPage({ words, language, token, onTrouble, onSignedIn, onNewLink, onLeave }: Props) {
  const [link, setLink] = useState<'checking' | 'live' | { dead: string[] }>('checking');
  const [password, setPassword] = useState('');
  const [confirmation, setConfirmation] = useState('');

  useEffect(() => {
    setLink('checking');
    void deadLinkMessages(token, onTrouble)
      .then((dead) => setLink(dead ? { dead } : 'live'))
      .catch(() => {
        onTrouble({ kind: 'failed', status: 0 });
        setLink('live');
      });
  }, [token]);

  if (link === 'checking') return <p aria-busy="true">…</p>;
  if (link !== 'live') {
    return (
      <PublicCard id="reset-title" title={words.resetTitle}>
        <p class="error" role="alert">
          {translateApiMessages(link.dead, language)}
        </p>
        <div class="actions">
          <button type="button" onClick={onNewLink}>
            {words.requestNewLink}
          </button>
          <button type="button" class="secondary-dark" onClick={onLeave}>
            {words.toStartPage}
          </button>
        </div>
      </PublicCard>
    );
  }
  return (
    <PublicForm
      id="reset-title"
      title={words.resetTitle}
      language={language}
      onTrouble={onTrouble}
      send={() => accounts.reset({ token, password, password_confirmation: confirmation })}
      onSent={() => onSignedIn(words.passwordSet)}
      onTokenRefused={(dead) => setLink({ dead })}
      fields={['password', 'password_confirmation']}
      submitLabel={words.setNewPassword}
    >
      {(errors) => (
        <>
          <Field label={words.newPassword} name="password" type="password" autocomplete="new-password" required hint={words.resetHint} value={password} errors={errors.password} language={language} onInput={setPassword} />
          <RepeatPasswordField words={words} language={language} value={confirmation} errors={errors.password_confirmation} onInput={setConfirmation} />
        </>
      )}
    </PublicForm>
  );
}
