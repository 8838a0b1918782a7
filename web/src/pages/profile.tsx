import type { paths } from 'groupadmin/client';
import { useEffect, useRef, useState } from 'preact/hooks';
import { Field, FormErrors, useFirstErrorFocus, validationErrors, type FieldErrors } from '../components/field.js';
import { changesOf, formOf, PersonFields, type ProfileForm, type ProfileKind } from '../components/person-fields.js';
import { dataOf, useApp } from '../context.js';
import { useLoad } from '../hooks.js';
import { formatDate, formatMoment } from '../i18n/index.js';
import { client, troubleOf } from '../session.js';

interface Props {
  /** The password changed: every other session of the user ended; this device got a new one. */
  onPasswordChanged: () => void;
}

type User = NonNullable<Awaited<ReturnType<typeof client.user>>['data']>;
type UserChanges = paths['/user']['patch']['requestBody']['content']['application/json'];

/** GET /user has no birthday, and PATCH /user keeps an e-mail address (the login needs one). */
const OWN: ProfileKind = { birthday: false, emailMayBeNull: false, ownDetails: true };

/** My profile: the 17 fields of GET /user (one request), those PATCH /user takes editable; my password. */
export function ProfilePage({ onPasswordChanged }: Props) {
  const app = useApp();
  const { words, language, session } = app;
  const [loaded] = useLoad(async () => dataOf(app, await client.user()), []);
  const [user, setUser] = useState<User | null>(null);
  const [form, setForm] = useState<ProfileForm | null>(null);
  const [errors, setErrors] = useState<FieldErrors>({});
  const [saved, setSaved] = useState(false);
  const saving = useRef(false);
  const formRef = useFirstErrorFocus(errors);
  useEffect(() => {
    if (!loaded) return;
    setUser(loaded);
    setForm(formOf(loaded));
  }, [loaded]);

  if (!user || !form) return <p aria-busy="true">…</p>;
  const change = <K extends keyof ProfileForm>(key: K, value: ProfileForm[K]) => {
    setSaved(false);
    setForm({ ...form, [key]: value });
  };

  const save = async (event: Event) => {
    event.preventDefault();
    // A second press while the first is on its way would only repeat it.
    if (saving.current) return;
    saving.current = true;
    try {
      const result = await client.api.PATCH('/user', { body: changesOf(user, form, OWN) as UserChanges });
      if (result.data) {
        setUser(result.data);
        setForm(formOf(result.data));
        setErrors({});
        setSaved(true);
        return;
      }
      const refused = validationErrors(result.response, result.error);
      if (refused) setErrors(refused);
      else app.report(troubleOf(result.response, result.error));
    } finally {
      saving.current = false;
    }
  };

  return (
    <>
      <form class="card" ref={formRef} onSubmit={save} noValidate aria-labelledby="profile-title">
        <h1 id="profile-title" tabIndex={-1}>
          {words.profile}
        </h1>
        <dl class="facts">
          <dt>{words.username}</dt>
          <dd>{user.username}</dd>
          <dt>{words.personNumber}</dt>
          <dd>{user.id}</dd>
          <dt>{words.recordCreated}</dt>
          <dd>{formatDate(user.created_at, language, session.timeZone)}</dd>
          <dt>{words.lastChanged}</dt>
          <dd>{formatMoment(user.updated_at, language, session.timeZone)}</dd>
        </dl>
        <PersonFields form={form} errors={errors} kind={OWN} onChange={change} />
        <div class="actions">
          <button type="submit">{words.save}</button>
          <p class="success" role="status">
            {saved ? words.saved : ''}
          </p>
        </div>
      </form>
      <section class="card" aria-labelledby="calendar-link-title">
        <h2 id="calendar-link-title">{words.calendarOnProfile}</h2>
        <p class="muted">{words.calendarOnProfileHint}</p>
        <a class="button-link" href="#/calendar">
          {words.addToCalendar}
        </a>
      </section>
      {/* Everyone may keep API tokens; only people with a role find them in the menu too. */}
      <section class="card" aria-labelledby="tokens-link-title">
        <h2 id="tokens-link-title">{words.apiTokens}</h2>
        <p class="muted">{words.apiTokensOnProfileHint}</p>
        <a class="button-link" href="#/tokens">
          {words.openApiTokens}
        </a>
      </section>
      <PasswordForm onChanged={onPasswordChanged} />
    </>
  );
}

const PASSWORD_FIELDS = ['current_password', 'password', 'password_confirmation'];

/** A password change through the session keeps this device signed in (the API sends a new session cookie). */
function PasswordForm({ onChanged }: { onChanged: () => void }) {
  const app = useApp();
  const { words } = app;
  const [current, setCurrent] = useState('');
  const [next, setNext] = useState('');
  const [confirmation, setConfirmation] = useState('');
  const [errors, setErrors] = useState<FieldErrors>({});
  const formRef = useFirstErrorFocus(errors);

  const submit = async (event: Event) => {
    event.preventDefault();
    const result = await client.api.PUT('/user/password', { body: { current_password: current, password: next, password_confirmation: confirmation } });
    if (result.response.ok) {
      setCurrent('');
      setNext('');
      setConfirmation('');
      setErrors({});
      return onChanged();
    }
    const refused = validationErrors(result.response, result.error);
    if (refused) setErrors(refused);
    else app.report(troubleOf(result.response, result.error));
  };
  const field = (label: string, name: string, value: string, set: (value: string) => void, autocomplete: string) => (
    <Field label={label} name={name} type="password" autocomplete={autocomplete} value={value} errors={errors[name]} onInput={set} />
  );

  return (
    <form class="card" ref={formRef} onSubmit={submit} noValidate aria-labelledby="password-title">
      <h2 id="password-title">{words.changePassword}</h2>
      <FormErrors errors={errors} shown={PASSWORD_FIELDS} />
      {field(words.currentPassword, 'current_password', current, setCurrent, 'current-password')}
      {field(words.newPassword, 'password', next, setNext, 'new-password')}
      {field(words.confirmPassword, 'password_confirmation', confirmation, setConfirmation, 'new-password')}
      <button type="submit">{words.changePassword}</button>
    </form>
  );
}
