import { useState } from 'preact/hooks';
import { covers } from '../access.js';
import { answerFor, Field, FormErrors, useFirstErrorFocus, type FieldErrors } from '../components/field.js';
import { changesOf, PersonFields, type ProfileForm, type ProfileKind, type StoredProfile } from '../components/person-fields.js';
import { useApp } from '../context.js';
import { formatDate, roleTypeLabel } from '../i18n/index.js';
import { translateApiMessage } from '../i18n/api-messages.js';
import { accounts } from '../mail-api.js';
import { client, newKey } from '../session.js';

type NewPerson = Parameters<typeof client.people.create>[0];
type Person = { id: number; firstname: string; lastname: string; birthday: string | null; email: string | null };

const NEW: ProfileKind = { birthday: true, emailMayBeNull: true, ownDetails: false };

/** Nothing known yet: the yes/no questions unanswered (no answer preselected). */
const NOTHING: StoredProfile = {
  email: null, firstname: '', lastname: '', birthday: null, gender_id: null, type_id: null, phonenumber: null,
  phonenumber_mobile: null, street: null, housenumber: null, zip: null, city: null, is_vegetarian: false, can_swimm: false,
};
const EMPTY_FORM: ProfileForm = {
  firstname: '', lastname: '', birthday: '', email: '', phonenumber: '', phonenumber_mobile: '', street: '', housenumber: '',
  zip: '', city: '', gender_id: '', type_id: '', is_vegetarian: null, can_swimm: null,
};

const same = (a: string | null | undefined, b: string | null | undefined) => (a ?? '').trim().toLowerCase() === (b ?? '').trim().toLowerCase();

/**
 * People the reader sees who may be the one being added: the same name and birthday, or the same
 * e-mail address (one or two searches, when the form is sent).
 */
async function possibleDuplicates(form: ProfileForm): Promise<Person[]> {
  const searches = [client.people.list({ q: form.lastname.trim(), limit: 200 })];
  if (form.email.trim()) searches.push(client.people.list({ q: form.email.trim(), limit: 20 }));
  const found = new Map<number, Person>();
  for (const result of await Promise.all(searches)) {
    const page = result.data;
    if (!page || typeof page === 'string') continue;
    for (const p of page.data.people) found.set(p.id, p);
  }
  return [...found.values()].filter(
    (p) =>
      (same(p.firstname, form.firstname) && same(p.lastname, form.lastname) && same(p.birthday, form.birthday)) ||
      (form.email.trim() !== '' && same(p.email, form.email)),
  );
}

/**
 * Adding a person to a group: every field of the profile, a membership with a role the reader may
 * grant there, and optionally a login. Before creating, people who look the same are shown.
 */
export function NewPersonPage({ groupId }: { groupId: number }) {
  const app = useApp();
  const { words, language, session } = app;
  const group = session.access.groups.get(groupId);
  const grantable = session.roleTypes.filter((role) => covers(session.access.permissionOn(groupId), role.permission));
  // The weakest role the reader may grant is what most additions are (a new child): `member` where there is one.
  const [role, setRole] = useState(grantable.find((r) => r.key === 'member')?.key ?? '');
  const [startOn, setStartOn] = useState(session.today);
  const [form, setForm] = useState<ProfileForm>(EMPTY_FORM);
  // No login until asked for: a password given here, or an invitation with which the person chooses their own.
  const [loginBy, setLoginBy] = useState<'none' | 'password' | 'invitation'>('none');
  const withLogin = loginBy === 'password';
  const [invitationKey] = useState(newKey);
  const [login, setLogin] = useState({ username: '', password: '' });
  const [errors, setErrors] = useState<FieldErrors>({});
  const [duplicates, setDuplicates] = useState<Person[] | null>(null);
  const formRef = useFirstErrorFocus(errors);
  if (!group || !session.access.atLeast(groupId, 'write')) return <p class="card">{words.nothing}</p>;

  const create = async (checked: boolean) => {
    // An invitation goes to the address typed above: without one the API would refuse it after the person exists.
    if (loginBy === 'invitation' && form.email.trim() === '') return setErrors({ email: ['The email field is required.'] });
    if (!checked && form.lastname.trim() !== '') {
      const found = await possibleDuplicates(form);
      if (found.length > 0) {
        // The question replaces the last refusal: its messages were about what was typed then.
        setErrors({});
        return setDuplicates(found);
      }
    }
    const body = {
      ...changesOf(NOTHING, form, NEW),
      firstname: form.firstname,
      lastname: form.lastname,
      membership: { group_id: groupId, role_type: role, start_on: startOn },
      ...(withLogin ? login : {}),
    } as NewPerson;
    const created = answerFor(app, await client.people.create(body), setErrors);
    if (!created) return setDuplicates(null);
    const name = `${form.firstname} ${form.lastname}`;
    const page = `people/${created.data.person.id}`;
    if (loginBy !== 'invitation') return app.announce(words.personAdded(name), page);
    const invited = await accounts.invite(created.data.person.id, invitationKey);
    if (invited.data) return app.announce(words.addedAndInvited(name, form.email.trim()), page);
    // The person exists either way: their page says why no invitation went out (and offers it again).
    const reason = (invited.error as { message?: string } | undefined)?.message ?? '';
    app.announce(words.addedNotInvited(name, translateApiMessage(reason, language)), page);
  };
  const submit = (event: Event) => {
    event.preventDefault();
    void create(false);
  };
  const day = (value: string) => formatDate(`${value}T12:00:00Z`, language, 'UTC');

  return (
    <form class="card" ref={formRef} onSubmit={submit} noValidate aria-labelledby="new-person-title">
      <p class="muted">
        <a href={`#/groups/${groupId}`}>{group.name}</a>
      </p>
      <h1 id="new-person-title" tabIndex={-1}>
        {words.addPersonTo(group.name)}
      </h1>
      <PersonFields form={form} errors={errors} kind={NEW} onChange={(key, value) => { setDuplicates(null); setForm({ ...form, [key]: value }); }} />
      <fieldset>
        <legend>{words.membershipIn(group.name)}</legend>
        <FormErrors errors={errors} shown={['membership.start_on', 'username', 'password', ...Object.keys(EMPTY_FORM)]} />
        <label>
          {words.role}
          <select name="role_type" required value={role} onChange={(e) => setRole((e.target as HTMLSelectElement).value)}>
            <option value="">{words.chooseRole}</option>
            {grantable.map((r) => (
              <option value={r.key}>{roleTypeLabel(r, language)}</option>
            ))}
          </select>
        </label>
        <Field label={words.startOn} name="start_on" type="date" required value={startOn} errors={errors['membership.start_on']} onInput={setStartOn} />
      </fieldset>
      <fieldset>
        <legend>{words.loginTitle}</legend>
        {(
          [
            ['none', words.loginNone],
            ['password', words.giveLogin],
            ['invitation', words.inviteByEmail],
          ] as const
        ).map(([choice, label]) => (
          <label class="check" key={choice}>
            <input type="radio" name="login_by" value={choice} checked={loginBy === choice} onChange={() => setLoginBy(choice)} />
            {label}
          </label>
        ))}
        {loginBy === 'invitation' && <p class="muted">{words.inviteNeedsEmail}</p>}
        {withLogin && (
          <>
            <p class="muted">{words.giveLoginHint}</p>
            <Field label={words.username} name="username" required value={login.username} errors={errors.username} autocomplete="off" onInput={(username) => setLogin({ ...login, username })} />
            <Field label={words.password} name="password" type="password" required value={login.password} errors={errors.password} autocomplete="new-password" onInput={(password) => setLogin({ ...login, password })} />
          </>
        )}
      </fieldset>
      {duplicates && (
        <div class="notice" role="alert">
          <p>{words.possibleDuplicates}</p>
          <ul class="list">
            {duplicates.map((p) => (
              <li key={p.id}>
                <a href={`#/people/${p.id}`}>
                  {p.firstname} {p.lastname}
                </a>
                {p.birthday && ` · ${day(p.birthday)}`}
                {p.email && ` · ${p.email}`}
              </li>
            ))}
          </ul>
          <button type="button" onClick={() => void create(true)}>
            {words.createAnyway}
          </button>
        </div>
      )}
      <div class="actions">
        <button type="submit">{words.addPerson}</button>
      </div>
    </form>
  );
}
