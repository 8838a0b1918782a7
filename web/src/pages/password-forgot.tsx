import { useState } from 'preact/hooks';
import { validationErrors, type FieldErrors } from '../components/field.js';
import { PublicField } from '../components/public-field.js';
import { translateApiMessage } from '../i18n/api-messages.js';
import type { Language, Words } from '../i18n/index.js';
import { accounts } from '../mail-api.js';
import { troubleOf, type Trouble } from '../session.js';

interface Props {
  words: Words;
  language: Language;
  onTrouble: (trouble: Trouble) => void;
}

/**
 * "Forgot your password?": an e-mail address, and the API's answer, which is the same whether the
 * address is known or not (nobody learns here who has a login).
 */
export function ForgotPasswordPage({ words, language, onTrouble }: Props) {
  const [email, setEmail] = useState('');
  const [errors, setErrors] = useState<FieldErrors>({});
  const [answer, setAnswer] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);

  const submit = async (event: Event) => {
    event.preventDefault();
    setBusy(true);
    setAnswer(null);
    try {
      const result = await accounts.forgot(email.trim());
      if (result.data) {
        setErrors({});
        return setAnswer(result.data.message);
      }
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
    <form class="card" onSubmit={submit} aria-labelledby="forgot-title">
      <h1 id="forgot-title" tabIndex={-1}>
        {words.forgotTitle}
      </h1>
      <p class="muted">{words.forgotHint}</p>
      <PublicField label={words.email} name="email" type="email" autocomplete="email" value={email} errors={errors.email} language={language} onInput={setEmail} />
      {answer && (
        <p class="success" role="status">
          {translateApiMessage(answer, language)}
        </p>
      )}
      <div class="actions">
        <button type="submit" disabled={busy}>
          {words.sendLink}
        </button>
        <a href="#/">{words.backToLogin}</a>
      </div>
    </form>
  );
}
