import { dataOf, useApp } from '../context.js';
import { useLoad } from '../hooks.js';
import { client } from '../session.js';

/** The header's people search: by name, username or e-mail, among the people the caller sees (one request). */
export function SearchPage({ text }: { text: string }) {
  const app = useApp();
  const { words } = app;
  const [people] = useLoad(async () => {
    const answer = dataOf(app, await client.people.list({ q: text, limit: 50 }));
    // JSON, not the CSV the same list also answers.
    return answer && typeof answer !== 'string' ? answer.data.people : null;
  }, [text]);
  return (
    <section class="card" aria-labelledby="search-title">
      <h1 id="search-title" tabIndex={-1}>
        {words.searchResults(text)}
      </h1>
      {!people ? (
        <p aria-busy="true">…</p>
      ) : people.length === 0 ? (
        <p class="muted">{words.noPeopleFound}</p>
      ) : (
        <ul class="list">
          {people.map((person) => (
            <li key={person.id}>
              <a href={`#/people/${person.id}`}>
                {person.firstname} {person.lastname}
              </a>
              {person.email && <span class="muted"> · {person.email}</span>}
            </li>
          ))}
        </ul>
      )}
    </section>
  );
}
