import type { ComponentChildren } from 'preact';
import { useEffect, useRef, useState } from 'preact/hooks';
import { useApp } from '../context.js';
import { client, troubleOf } from '../session.js';
import { useFirstErrorFocus, validationErrors, type FieldErrors } from './field.js';
import { changesOf, describeChanges, formOf, PersonFields, type ProfileForm, type ProfileKey, type ProfileKind } from './person-fields.js';

export type Person = NonNullable<Awaited<ReturnType<typeof client.people.get>>['data']>['data']['person'];
type PersonChanges = Parameters<typeof client.people.update>[1];

/** The person as read, with the version a change must start from. */
export interface ReadPerson {
  person: Person;
  etag: string | undefined;
}

interface Props {
  read: ReadPerson;
  kind: ProfileKind;
  /** After a save: the person as the API now has them. */
  onSaved: (read: ReadPerson) => void;
  /** Someone else changed the person meanwhile: read them again (the form keeps nothing stale). */
  onStale: () => void;
  labelledBy: string;
  /** Above the fields (the heading), and below the save button. */
  children?: ComponentChildren;
  after?: ComponentChildren;
}

/**
 * A person's profile as a form that saves only what was changed, with the version read (If-Match):
 * a change someone else made meanwhile is reported with what was not saved, never overwritten.
 * A ward's page (guardians) and a person's page (leaders) share it.
 */
export function ProfileEditor({ read, kind, onSaved, onStale, labelledBy, children, after }: Props) {
  const app = useApp();
  const { words } = app;
  const [form, setForm] = useState<ProfileForm>(() => formOf(read.person));
  const [errors, setErrors] = useState<FieldErrors>({});
  const [saved, setSaved] = useState(false);
  // Changes refused because someone else changed the person first: said, never dropped in silence.
  const [notSaved, setNotSaved] = useState<Partial<Record<ProfileKey, unknown>> | null>(null);
  const saving = useRef(false);
  const formRef = useFirstErrorFocus(errors);
  useEffect(() => setForm(formOf(read.person)), [read]);

  const change = <K extends keyof ProfileForm>(key: K, value: ProfileForm[K]) => {
    setSaved(false);
    setForm({ ...form, [key]: value });
  };
  const save = async (event: Event) => {
    event.preventDefault();
    // A second press while the first is on its way would fail on the version the first one changed.
    if (saving.current) return;
    saving.current = true;
    const changes = changesOf(read.person, form, kind);
    try {
      const result = await client.people.update(read.person.id, changes as PersonChanges, read.etag);
      if (result.data) {
        setErrors({});
        setNotSaved(null);
        setSaved(true);
        onSaved({ person: result.data.data.person, etag: result.response.headers.get('ETag') ?? undefined });
      } else if (result.response.status === 412) {
        setErrors({});
        setSaved(false);
        setNotSaved(changes);
        onStale();
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
    <form class="card" ref={formRef} onSubmit={save} noValidate aria-labelledby={labelledBy}>
      {children}
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
      <PersonFields form={form} errors={errors} kind={kind} onChange={change} />
      <div class="actions">
        <button type="submit">{words.save}</button>
        <p class="success" role="status">
          {saved ? words.saved : ''}
        </p>
      </div>
      {after}
    </form>
  );
}
