import type { FieldErrors } from './field.js';
import { translateApiMessages } from '../i18n/api-messages.js';
import type { Language } from '../i18n/index.js';

type Named = { firstname: string; lastname: string };

/**
 * "Kim Kid: The event is full." for each refused item of a bulk request (keyed `<list>.<i>...`),
 * its person found by the item's index; a refusal of no item as it is.
 */
export function namedRefusals(errors: FieldErrors, personAt: (index: number) => Named | undefined, language: Language): string[] {
  return Object.entries(errors).map(([key, messages]) => {
    const index = /^\w+\.(\d+)/.exec(key)?.[1];
    const person = index === undefined ? undefined : personAt(Number(index));
    const text = translateApiMessages(messages, language);
    return person ? `${person.firstname} ${person.lastname}: ${text}` : text;
  });
}

/** A bulk request's refusals, each on a line, announced. */
export function Refusals({ refusals }: { refusals: string[] }) {
  if (refusals.length === 0) return null;
  return (
    <div class="error" role="alert">
      {refusals.map((line) => (
        <p key={line}>{line}</p>
      ))}
    </div>
  );
}
