import type { ComponentChildren } from 'preact';
import { useState } from 'preact/hooks';
import { translateApiMessages } from '../i18n/api-messages.js';
import type { Language, Words } from '../i18n/index.js';
import type { Answer } from '../mail-api.js';
import { troubleOf, type Trouble } from '../session.js';
import { Field, useFirstErrorFocus, validationErrors, type FieldErrors } from './field.js';

interface CardProps {
  /** The heading's id: the card is named by it. */
  id: string;
  title: string;
  children: ComponentChildren;
}

/**
 * The frame of a page shown before sign-in (forgot password, a mail's link): a card named by its
 * heading, which the app focuses when the page is shown.
 */
export function PublicCard({ id, title, children }: CardProps) {
  return (
    <section class="card" aria-labelledby={id}>
      <h1 id={id} tabIndex={-1}>
        {title}
      </h1>
      {children}
    </section>
  );
}

const MISMATCH = 'The password field confirmation does not match.';

/**
 * The API says a repeated password differs on `password`; the reader looks for it under the
 * field they typed the repetition into.
 */
export function besideConfirmation(errors: FieldErrors): FieldErrors {
  const mismatch = errors.password?.filter((message) => message === MISMATCH) ?? [];
  if (mismatch.length === 0) return errors;
  const { password, ...others } = errors;
  const rest = password!.filter((message) => message !== MISMATCH);
  return { ...others, ...(rest.length > 0 ? { password: rest } : {}), password_confirmation: [...(others.password_confirmation ?? []), ...mismatch] };
}

interface FormProps<T> extends Omit<CardProps, 'children'> {
  language: Language;
  onTrouble: (trouble: Trouble) => void;
  /** Sends what was typed. */
  send: () => Promise<Answer<T>>;
  /** The API took it: what the page does next. */
  onSent: (data: T) => unknown;
  /** The API refused the mail's link (422 on `token`): the page says so instead of the form. */
  onTokenRefused?: (messages: string[]) => void;
  /** The fields the form shows: their messages go beside them, any other field's above the button. */
  fields: readonly string[];
  submitLabel: string;
  /** The fields, given the API's messages by field. */
  children: (errors: FieldErrors) => ComponentChildren;
  /** Beside the submit button (e.g. a link back to the login). */
  actions?: ComponentChildren;
}

/**
 * A form of a page shown before sign-in: its frame, and its submit that shows the API's refusals
 * beside their fields (the first one focused) and reports any other trouble to the app.
 */
export function PublicForm<T>(props: FormProps<T>) {
  const [errors, setErrors] = useState<FieldErrors>({});
  const [busy, setBusy] = useState(false);
  const form = useFirstErrorFocus(errors);

  const submit = async (event: Event) => {
    event.preventDefault();
    setBusy(true);
    try {
      const result = await props.send();
      if (result.data !== undefined) {
        setErrors({});
        return await props.onSent(result.data);
      }
      const refused = validationErrors(result.response, result.error);
      if (refused?.token && props.onTokenRefused) props.onTokenRefused(refused.token);
      else if (refused) setErrors(besideConfirmation(refused));
      else props.onTrouble(troubleOf(result.response, result.error));
    } catch {
      props.onTrouble({ kind: 'failed', status: 0 });
    } finally {
      setBusy(false);
    }
  };

  const others = Object.entries(errors).filter(([field]) => !props.fields.includes(field));
  return (
    <form ref={form} class="card" onSubmit={submit} aria-labelledby={props.id}>
      <h1 id={props.id} tabIndex={-1}>
        {props.title}
      </h1>
      {props.children(errors)}
      {others.length > 0 && (
        <div class="form-errors error" role="alert" tabIndex={-1}>
          {others.map(([field, messages]) => (
            <p key={field}>{translateApiMessages(messages, props.language)}</p>
          ))}
        </div>
      )}
      <div class="actions">
        <button type="submit" disabled={busy}>
          {props.submitLabel}
        </button>
        {props.actions}
      </div>
    </form>
  );
}

/** "Repeat the password", under which a mismatch is said (see `besideConfirmation`). */
export function RepeatPasswordField({ words, language, value, errors, onInput }: { words: Words; language: Language; value: string; errors: string[] | undefined; onInput: (value: string) => void }) {
  return (
    <Field
      label={words.repeatPassword}
      name="password_confirmation"
      type="password"
      autocomplete="new-password"
      required
      value={value}
      errors={errors}
      language={language}
      onInput={onInput}
    />
  );
}
