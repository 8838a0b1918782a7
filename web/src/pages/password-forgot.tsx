import { useState } from 'preact/hooks';
import { Field } from '../components/field.js';
import { PublicForm } from '../components/public-form.js';
import { translateApiMessage } from '../i18n/api-messages.js';
import type { Language, Words } from '../i18n/index.js';
import { accounts } from '../mail-api.js';
import type { Trouble } from '../session.js';

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
  const [answer, setAnswer] = useState<string | null>(null);

  return (
    <PublicForm
      id="forgot-title"
      title={words.forgotTitle}
      language={language}
      onTrouble={onTrouble}
      send={() => {
        setAnswer(null);
        return accounts.forgot(email.trim());
      }}
      onSent={(data) => setAnswer(data.message)}
      fields={['email']}
      submitLabel={words.sendLink}
      actions={<a href="#/">{words.backToLogin}</a>}
    >
      {(errors) => (
        <>
          <p class="muted">{words.forgotHint}</p>
          <Field label={words.email} name="email" type="email" autocomplete="email" required value={email} errors={errors.email} language={language} onInput={setEmail} />
          {answer && (
            <p class="success" role="status">
              {translateApiMessage(answer, language)}
            </p>
          )}
        </>
      )}
    </PublicForm>
  );
}
