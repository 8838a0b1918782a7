import { useState } from 'preact/hooks';
import { answerFor, Field, FormErrors, useFirstErrorFocus, type FieldErrors } from '../components/field.js';
import { dataOf, useApp } from '../context.js';
import { client } from '../session.js';
import type { PersonData } from './person.js';

type Person = PersonData['person'];
type Guardian = NonNullable<PersonData['guardians']>[number];

/**
 * A person's guardians with their numbers; those who lead the person's group link one (found by
 * name, or by e-mail address), create a new parent in the same step, or unlink one after a question.
 */
export function GuardiansCard({ person, guardians, mayChange, onChanged }: { person: Person; guardians: Guardian[]; mayChange: boolean; onChanged: () => void }) {
  const app = useApp();
  const { words } = app;
  const [adding, setAdding] = useState<'none' | 'find' | 'email' | 'new'>('none');
  const unlink = async (guardian: Guardian) => {
    if (!confirm(words.confirmUnlinkGuardian(`${guardian.firstname} ${guardian.lastname}`, person.firstname))) return;
    const result = await client.people.removeGuardian(person.id, guardian.id);
    if (result.response.status !== 204) return void dataOf(app, result);
    app.announce(words.guardianUnlinked(`${guardian.firstname} ${guardian.lastname}`));
    onChanged();
  };
  const linked = (guardian: { firstname: string; lastname: string }) => {
    app.announce(words.guardianLinked(`${guardian.firstname} ${guardian.lastname}`, person.firstname));
    setAdding('none');
    onChanged();
  };
  const contacts = (g: Guardian) => [g.phonenumber_mobile, g.phonenumber, g.email].filter(Boolean).join(' · ');

  return (
    <section class="card">
      <h2>{words.guardians}</h2>
      {guardians.length > 0 ? (
        <ul class="list">
          {guardians.map((g) => (
            <li key={g.id}>
              <a href={`#/people/${g.id}`}>
                {g.firstname} {g.lastname}
              </a>
              {contacts(g) && <span class="muted"> · {contacts(g)}</span>}
              {mayChange && (
                <button type="button" class="link" onClick={() => void unlink(g)}>
                  {words.unlinkGuardian}
                </button>
              )}
            </li>
          ))}
        </ul>
      ) : (
        <p class="muted">{words.nothing}</p>
      )}
      {mayChange && (
        <>
          <div class="tabs" role="group" aria-label={words.addGuardian}>
            {(['find', 'email', 'new'] as const).map((way) => (
              <button type="button" class={adding === way ? '' : 'secondary-dark'} aria-pressed={adding === way} onClick={() => setAdding(adding === way ? 'none' : way)}>
                {way === 'find' ? words.linkExistingGuardian : way === 'email' ? words.linkGuardianByEmail : words.createGuardian}
              </button>
            ))}
          </div>
          {adding === 'find' && <FindGuardian person={person} exclude={[person.id, ...guardians.map((g) => g.id)]} onLinked={linked} />}
          {adding === 'email' && <GuardianByEmail person={person} onLinked={linked} />}
          {adding === 'new' && <NewGuardian person={person} onLinked={linked} />}
        </>
      )}
    </section>
  );
}

type OnLinked = (guardian: { firstname: string; lastname: string }) => void;

/** Someone the reader sees, found by name or e-mail (one request per search), linked with a button. */
function FindGuardian({ person, exclude, onLinked }: { person: Person; exclude: number[]; onLinked: OnLinked }) {
  const app = useApp();
  const { words } = app;
  const [text, setText] = useState('');
  const [found, setFound] = useState<Person[] | null>(null);
  const search = async (event: Event) => {
    event.preventDefault();
    const page = dataOf(app, await client.people.list({ q: text, limit: 20 }));
    if (!page || typeof page === 'string') return;
    setFound(page.data.people.filter((p) => !exclude.includes(p.id)));
  };
  const link = async (guardian: Person) => {
    if (dataOf(app, await client.people.addGuardian(person.id, guardian.id))) onLinked(guardian);
  };
  return (
    <div>
      <form class="inline-form" role="search" onSubmit={search}>
        <Field label={words.searchPeople} name="guardian_search" value={text} required onInput={setText} />
        <button type="submit">{words.search}</button>
      </form>
      {found !== null &&
        (found.length > 0 ? (
          <ul class="list">
            {found.map((p) => (
              <li key={p.id}>
                {p.firstname} {p.lastname}
                {p.email && <span class="muted"> · {p.email}</span>}
                <button type="button" class="link" onClick={() => void link(p)}>
                  {words.linkAsGuardian(`${p.firstname} ${p.lastname}`)}
                </button>
              </li>
            ))}
          </ul>
        ) : (
          <p class="muted">{words.noPeopleFound}</p>
        ))}
    </div>
  );
}

/** A parent known by their address only (they may belong to no group the reader sees). */
function GuardianByEmail({ person, onLinked }: { person: Person; onLinked: OnLinked }) {
  const app = useApp();
  const { words } = app;
  const [email, setEmail] = useState('');
  const [errors, setErrors] = useState<FieldErrors>({});
  const form = useFirstErrorFocus(errors);
  const link = async (event: Event) => {
    event.preventDefault();
    const result = await client.people.addGuardianByEmail(person.id, email);
    // No one with that address whom the reader may link: said beside the field, not as a missing page.
    if (result.response.status === 404) return setErrors({ email: [words.noGuardianWithEmail] });
    const linked = answerFor(app, result, setErrors);
    if (linked) onLinked(linked.data.guardian);
  };
  return (
    <form class="inline-form" onSubmit={link} ref={form}>
      <FormErrors errors={errors} shown={['email']} />
      <Field label={words.email} name="guardian_email" type="email" required value={email} errors={errors.email} onInput={setEmail} />
      <button type="submit">{words.linkGuardianByEmail}</button>
    </form>
  );
}

/** A new parent, created and linked in one step (they get no membership of their own). */
function NewGuardian({ person, onLinked }: { person: Person; onLinked: OnLinked }) {
  const app = useApp();
  const { words } = app;
  const [fields, setFields] = useState({ firstname: '', lastname: person.lastname, email: '', phonenumber_mobile: '' });
  const [errors, setErrors] = useState<FieldErrors>({});
  const form = useFirstErrorFocus(errors);
  const set = (key: keyof typeof fields) => (value: string) => setFields({ ...fields, [key]: value });
  const create = async (event: Event) => {
    event.preventDefault();
    const body = {
      firstname: fields.firstname,
      lastname: fields.lastname,
      guardian_of: person.id,
      ...(fields.email ? { email: fields.email } : {}),
      ...(fields.phonenumber_mobile ? { phonenumber_mobile: fields.phonenumber_mobile } : {}),
    };
    const created = answerFor(app, await client.people.create(body), setErrors);
    if (created) onLinked(created.data.person);
  };
  return (
    <form class="inline-form" onSubmit={create} ref={form}>
      <p class="muted">{words.createGuardianHint(person.firstname)}</p>
      <FormErrors errors={errors} shown={['firstname', 'lastname', 'email', 'phonenumber_mobile']} />
      <Field label={words.firstname} name="guardian_firstname" required value={fields.firstname} errors={errors.firstname} onInput={set('firstname')} />
      <Field label={words.lastname} name="guardian_lastname" required value={fields.lastname} errors={errors.lastname} onInput={set('lastname')} />
      <Field label={words.email} name="guardian_email" type="email" value={fields.email} errors={errors.email} onInput={set('email')} />
      <Field label={words.phonenumberMobile} name="guardian_mobile" type="tel" value={fields.phonenumber_mobile} errors={errors.phonenumber_mobile} onInput={set('phonenumber_mobile')} />
      <button type="submit">{words.createGuardian}</button>
    </form>
  );
}
