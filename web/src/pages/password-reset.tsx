import { useState } from 'preact/hooks';
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
  /** The link was refused: a new one is asked for. */
  onNewLink: () => void;
}

/** "Set a new password", reached from the mail's link: a password twice, then signed in. */
export function ResetPasswordPage({ words, language, token, onTrouble, onSignedIn, onNewLink }: Props) {
  const [password, setPassword] = useState('');
  const [confirmation, setConfirmation] = useState('');
  const [errors, setErrors] = useState<FieldErrors>({});
  const [busy, setBusy] = useState(false);

  const submit = async (event: Event) => {
    event.preventDefault();
    setBusy(true);
    try {
      const result = await accounts.reset({ token, password, password_confirmation: confirmation });
      if (result.data) return await onSignedIn();
      const refused = validationErrors(result.response, result.error);
      if (refused) setErrors(refused);
      else onTrouble(troubleOf(result.response, result.error));
    } catch {
      onTrouble({ kind: 'failed', status: 0 });
    } finally {
      setBusy(false);
    }
  };

  return (
    <form class="card" onSubmit={submit} aria-labelledby="reset-title">
      <h1 id="reset-title" tabIndex={-1}>
        {words.resetTitle}
      </h1>
      {errors.token && (
        <div class="error" role="alert">
          <p>{translateApiMessages(errors.token, language)}</p>
          <button type="button" class="secondary-dark" onClick={onNewLink}>
            {words.requestNewLink}
          </button>
        </div>
      )}
      <PublicField label={words.newPassword} name="password" type="password" autocomplete="new-password" hint={words.resetHint} value={password} errors={errors.password} language={language} onInput={setPassword} />
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
      <div class="actions">
        <button type="submit" disabled={busy}>
          {words.setNewPassword}
        </button>
      </div>
    </form>
  );
}
