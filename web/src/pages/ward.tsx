import { useEffect, useState } from 'preact/hooks';
import type { ProfileKind } from '../components/person-fields.js';
import { ProfileEditor, type ReadPerson } from '../components/profile-editor.js';
import { dataOf, useApp } from '../context.js';
import { useLoad } from '../hooks.js';
import { formatMoment } from '../i18n/index.js';
import { client } from '../session.js';

/** A guardian changes the profile fields and the birthday; never the login, memberships or guardians. */
const WARD: ProfileKind = { birthday: true, emailMayBeNull: true, ownDetails: false };

/** A ward's profile, as their guardian sees and corrects it (one request: GET /people/{id}). */
export function WardPage({ id }: { id: number }) {
  const app = useApp();
  const { words, language, session } = app;
  const [loaded, reload] = useLoad(async (): Promise<ReadPerson | null> => {
    const result = await client.people.get(id);
    const data = dataOf(app, result);
    return data && { person: data.data.person, etag: result.response.headers.get('ETag') ?? undefined };
  }, [id]);
  const [read, setRead] = useState<ReadPerson | null>(null);
  useEffect(() => setRead(loaded), [loaded]);
  if (!read) return <p aria-busy="true">…</p>;
  const { person } = read;
  // The e-mail address is the key to an account: only the person and the tenant's administrators change it.
  const kind: ProfileKind = { ...WARD, locked: { keys: ['email'], hint: words.loginFieldsLocked } };

  return (
    <ProfileEditor
      read={read}
      kind={kind}
      onSaved={setRead}
      onStale={reload}
      labelledBy="ward-title"
      after={
        <dl class="facts">
          {person.username !== null && (
            <>
              <dt>{words.username}</dt>
              <dd>{person.username}</dd>
            </>
          )}
          <dt>{words.lastChanged}</dt>
          <dd>{formatMoment(person.updated_at, language, session.timeZone)}</dd>
        </dl>
      }
    >
      <p class="muted">
        <a href="#/wards">{words.wards}</a>
      </p>
      <h1 id="ward-title" tabIndex={-1}>
        {person.firstname} {person.lastname}
      </h1>
      <p class="muted">{words.wardHint}</p>
    </ProfileEditor>
  );
}
