import { useId, useState } from 'preact/hooks';
import { dataOf, useApp } from '../context.js';
import { translateApiMessage } from '../i18n/api-messages.js';
import { saveFile } from '../save-file.js';
import { client, troubleOf } from '../session.js';

/**
 * For the tenant's administrators on a person's page: the person's data as a file (a request for
 * information) and erasing them, confirmed by typing their full name and asked once more.
 */
export function PersonAdmin({ person, etag }: { person: { id: number; firstname: string; lastname: string }; etag: string | undefined }) {
  const app = useApp();
  const { words, language } = app;
  const fullName = `${person.firstname} ${person.lastname}`.trim();
  const [typed, setTyped] = useState('');
  const [problem, setProblem] = useState<string | null>(null);
  const id = useId();
  const download = async () => {
    const data = dataOf(app, await client.people.export(person.id));
    if (data) saveFile(`person-${person.id}.json`, JSON.stringify(data.data.export, null, 2), 'application/json');
  };
  const erase = async (event: Event) => {
    event.preventDefault();
    // Spaces and case aside, the name as shown: a slip of the finger is not a different person.
    if (typed.trim().replace(/\s+/g, ' ').toLowerCase() !== fullName.replace(/\s+/g, ' ').toLowerCase()) return setProblem(words.nameDoesNotMatch(fullName));
    if (!confirm(words.confirmErase(fullName))) return;
    setProblem(null);
    const result = await client.people.erase(person.id, etag);
    if (result.response.ok) return app.announce(words.erased(fullName), '/');
    const trouble = troubleOf(result.response, result.error);
    if (trouble.kind !== 'refused') return app.report(trouble);
    // The API says what keeps the person (the last administrator), beside the field, in the reader's language.
    setProblem(words.notErased(translateApiMessage(trouble.message, language)));
  };
  return (
    <section class="card person-admin" aria-labelledby={`${id}-title`}>
      <h2 id={`${id}-title`}>{words.personAdmin}</h2>
      <p class="muted">{words.downloadPersonDataHint}</p>
      <div class="actions">
        <button type="button" class="secondary-dark" onClick={() => void download()}>
          {words.downloadPersonData}
        </button>
      </div>
      <form class="danger-zone" onSubmit={erase} aria-label={words.erasePerson}>
        <p class="muted" id={`${id}-hint`}>
          {words.erasePersonHint(fullName)}
        </p>
        <label for={`${id}-name`}>{words.typeFullName}</label>
        <input
          id={`${id}-name`}
          name="full_name"
          autocomplete="off"
          value={typed}
          aria-invalid={problem ? 'true' : undefined}
          aria-describedby={`${id}-hint${problem ? ` ${id}-error` : ''}`}
          onInput={(e) => setTyped((e.target as HTMLInputElement).value)}
        />
        {problem && (
          <span id={`${id}-error`} class="error" role="alert">
            {problem}
          </span>
        )}
        <button type="submit" class="danger">
          {words.erasePerson}
        </button>
      </form>
    </section>
  );
}
