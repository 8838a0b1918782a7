import { useEffect, useRef, useState } from 'preact/hooks';
import { useFirstErrorFocus, validationErrors, type FieldErrors } from '../components/field.js';
import { changesOf, describeChanges, formOf, PersonFields, type ProfileForm, type ProfileKey, type ProfileKind } from '../components/person-fields.js';
import { dataOf, useApp } from '../context.js';
import { useLoad } from '../hooks.js';
import { formatMoment } from '../i18n/index.js';
import { client, troubleOf } from '../session.js';

type Person = NonNullable<Awaited<ReturnType<typeof client.people.get>>['data']>['data']['person'];
type PersonChanges = Parameters<typeof client.people.update>[1];

/** The person as read, with the version a change must start from. */
interface Read {
  person: Person;
  etag: string | undefined;
}

/** A guardian changes the profile fields and the birthday; never the login, memberships or guardians. */
const WARD: ProfileKind = { birthday: true, emailMayBeNull: true, ownDetails: false };

/** A ward's profile, as their guardian sees and corrects it (one request: GET /people/{id}). */
export function WardPage({ id }: { id: number }) {
  const app = useApp();
  const { words, language, session } = app;
  const [loaded, reload] = useLoad(async (): Promise<Read | null> => {
    const result = await client.people.get(id);
    const data = dataOf(app, result);
    return data && { person: data.data.person, etag: result.response.headers.get('ETag') ?? undefined };
  }, [id]);
  const [read, setRead] = useState<Read | null>(null);
  const [form, setForm] = useState<ProfileForm | null>(null);
  const [errors, setErrors] = useState<FieldErrors>({});
  const [saved, setSaved] = useState(false);
  // Changes refused because someone else changed the ward first: said, never dropped in silence.
  const [notSaved, setNotSaved] = useState<Partial<Record<ProfileKey, unknown>> | null>(null);
  const saving = useRef(false);
  const formRef = useFirstErrorFocus(errors);
  useEffect(() => {
    if (!loaded) return;
    setRead(loaded);
    setForm(formOf(loaded.person));
  }, [loaded]);

  if (!read || !form) return <p aria-busy="true">…</p>;
  const { person } = read;
  const change = <K extends keyof ProfileForm>(key: K, value: ProfileForm[K]) => {
    setSaved(false);
    setForm({ ...form, [key]: value });
  };

  const save = async (event: Event) => {
    event.preventDefault();
    // A second press while the first is on its way would fail on the version the first one changed.
    if (saving.current) return;
    saving.current = true;
    const changes = changesOf(person, form, WARD);
    try {
      const result = await client.people.update(id, changes as PersonChanges, read.etag);
      if (result.data) {
        const updated = result.data.data.person;
        setRead({ person: updated, etag: result.response.headers.get('ETag') ?? undefined });
        setForm(formOf(updated));
        setErrors({});
        setNotSaved(null);
        setSaved(true);
      } else if (result.response.status === 412) {
        setErrors({});
        setSaved(false);
        setNotSaved(changes);
        reload();
      } else {
        const refused = validationErrors(result.response, result.error);
        if (refused) setErrors(refused);
        else app.report(troubleOf(result.response, result.error));
      }
    } finally {
      saving.current = false;
    }
  };
  const lost = notSaved ? describeChanges(notSaved, words) : [];

  return (
    <form class="card" ref={formRef} onSubmit={save} noValidate aria-labelledby="ward-title">
      <p class="muted">
        <a href="#/wards">{words.wards}</a>
      </p>
      <h1 id="ward-title" tabIndex={-1}>
        {person.firstname} {person.lastname}
      </h1>
      <p class="muted">{words.wardHint}</p>
      {notSaved && (
        <div class="notice" role="alert">
          <p>{words.changedMeanwhile}</p>
          {lost.length > 0 && (
            <>
              <p>{words.notSavedEnterAgain}</p>
              <ul class="list">
                {lost.map((line) => (
                  <li key={line}>{line}</li>
                ))}
              </ul>
            </>
          )}
        </div>
      )}
      <PersonFields form={form} errors={errors} kind={WARD} onChange={change} />
      <div class="actions">
        <button type="submit">{words.save}</button>
        <p class="success" role="status">
          {saved ? words.saved : ''}
        </p>
      </div>
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
    </form>
  );
}
