import { useId } from 'preact/hooks';
import { translateApiMessages } from '../i18n/api-messages.js';
import type { Language } from '../i18n/index.js';

interface Props {
  label: string;
  name: string;
  value: string;
  onInput: (value: string) => void;
  language: Language;
  errors?: string[] | undefined;
  type?: 'text' | 'email' | 'password';
  autocomplete?: string;
  hint?: string;
}

/**
 * A field of the pages shown before sign-in (they have no signed-in app around them): its label,
 * and the API's messages about it right below, in the reader's language.
 */
export function PublicField(props: Props) {
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
        // Preact's input types tie some attributes to some values of `type`; these all take the same ones.
        type={(props.type ?? 'text') as 'text'}
        autocomplete={props.autocomplete}
        required
        value={props.value}
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
          {translateApiMessages(props.errors, props.language)}
        </span>
      )}
    </div>
  );
}
