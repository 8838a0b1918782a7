import { useContext, useEffect, useId, useRef } from 'preact/hooks';
import { AppContext, useApp } from '../context.js';
import { translateApiMessages } from '../i18n/api-messages.js';
import type { Language } from '../i18n/index.js';
import { troubleOf, type Trouble } from '../session.js';

/** A 422's `errors`: the API's messages by field, kept in English and translated when shown. */
export type FieldErrors = Record<string, string[]>;

/** The `errors` of a 422, or null for any other answer (the page reports those). */
export function validationErrors(response: Response, error: unknown): FieldErrors | null {
  if (response.status !== 422) return null;
  const errors = (error as { errors?: unknown } | undefined)?.errors;
  return errors !== null && typeof errors === 'object' ? (errors as FieldErrors) : null;
}

/**
 * A write's answer for a form: its data; or, for a 422, null after putting the messages beside
 * their fields (`show`); or null after the page reported any other trouble.
 */
export function answerFor<T>(
  app: { report: (trouble: Trouble) => void },
  result: { data?: T; error?: unknown; response: Response },
  show: (errors: FieldErrors) => void,
): T | null {
  if (result.data !== undefined) {
    show({});
    return result.data;
  }
  const errors = validationErrors(result.response, result.error);
  if (errors) show(errors);
  else app.report(troubleOf(result.response, result.error));
  return null;
}

/**
 * The form's ref: after a refusal its first field in error is scrolled into view (a phone shows a
 * few fields only) and focused, so a screen reader reads the field with its message.
 */
export function useFirstErrorFocus(errors: FieldErrors) {
  const form = useRef<HTMLFormElement>(null);
  useEffect(() => {
    if (Object.keys(errors).length === 0) return;
    const first = form.current?.querySelector<HTMLElement>('[aria-invalid="true"], .form-errors');
    first?.scrollIntoView({ block: 'center' });
    first?.focus({ preventScroll: true });
  }, [errors]);
  return form;
}

interface FieldProps {
  label: string;
  name: string;
  value: string;
  onInput: (value: string) => void;
  errors?: string[] | undefined;
  type?: 'text' | 'email' | 'tel' | 'date' | 'password' | 'datetime-local' | 'number';
  required?: boolean;
  min?: string;
  inputMode?: 'numeric';
  autocomplete?: string | undefined;
  /** Shown, not changed (e.g. the login fields of someone else); `hint` says why. */
  readOnly?: boolean;
  hint?: string | undefined;
  /** The reader's language, for the pages shown before sign-in (no signed-in app around them to ask). */
  language?: Language;
}

/** An input with its label, and the API's messages about it right below, in the reader's language. */
export function Field(props: FieldProps) {
  const app = useContext(AppContext);
  const language = props.language ?? app?.language ?? 'en';
  const id = useId();
  const errorId = `${id}-error`;
  const hintId = `${id}-hint`;
  const describedBy = [props.errors ? errorId : '', props.hint ? hintId : ''].filter(Boolean).join(' ');
  return (
    <div class="field">
      <label for={id}>{props.label}</label>
      <input
        id={id}
        name={props.name}
        // Preact's input types tie some attributes to some values of `type`; ours all take the same ones.
        type={(props.type ?? 'text') as 'text'}
        inputMode={props.inputMode}
        autocomplete={props.autocomplete}
        required={props.required}
        min={props.min}
        value={props.value}
        readOnly={props.readOnly}
        aria-invalid={props.errors ? 'true' : undefined}
        aria-describedby={describedBy || undefined}
        onInput={(event) => props.onInput((event.target as HTMLInputElement).value)}
      />
      {props.hint && (
        <span id={hintId} class="muted hint">
          {props.hint}
        </span>
      )}
      {props.errors && (
        <span id={errorId} class="error">
          {translateApiMessages(props.errors, language)}
        </span>
      )}
    </div>
  );
}

interface YesNoProps {
  legend: string;
  name: string;
  /** null: not answered, and neither answer is preselected. */
  value: boolean | null;
  onChange: (value: boolean) => void;
  errors?: string[] | undefined;
}

/** A yes/no question as two radios (a checkbox cannot tell "no" from "not answered"). */
export function YesNo(props: YesNoProps) {
  const { words, language } = useApp();
  const errorId = `${useId()}-error`;
  return (
    <fieldset class="yes-no">
      <legend>{props.legend}</legend>
      <div class="answers">
        {[true, false].map((answer) => (
          <label class="check" key={String(answer)}>
            <input
              type="radio"
              name={props.name}
              value={answer ? 'yes' : 'no'}
              checked={props.value === answer}
              aria-invalid={props.errors ? 'true' : undefined}
              aria-describedby={props.errors ? errorId : undefined}
              onChange={() => props.onChange(answer)}
            />
            {answer ? words.yes : words.no}
          </label>
        ))}
      </div>
      {props.errors && (
        <span id={errorId} class="error">
          {translateApiMessages(props.errors, language)}
        </span>
      )}
    </fieldset>
  );
}

/** The messages about fields the form does not show (none is dropped unseen), above the form's fields. */
export function FormErrors({ errors, shown }: { errors: FieldErrors; shown: readonly string[] }) {
  const { language } = useApp();
  const others = Object.entries(errors).filter(([key]) => !shown.includes(key));
  if (others.length === 0) return null;
  return (
    <div class="form-errors error" role="alert" tabIndex={-1}>
      {others.map(([key, messages]) => (
        <p key={key}>{translateApiMessages(messages, language)}</p>
      ))}
    </div>
  );
}
