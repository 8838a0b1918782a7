import { useEffect, useState } from 'preact/hooks';
import { useApp } from '../context.js';
import { translateApiMessages } from '../i18n/api-messages.js';
import { formatDate, type Words } from '../i18n/index.js';
import { client, troubleOf, type Trouble } from '../session.js';

interface Props {
  /** The password changed: every token of the user ended, this one too. */
  onPasswordChanged: () => void;
}

type User = NonNullable<Awaited<ReturnType<typeof client.user>>['data']>;
type Editable = Pick<User, 'firstname' | 'lastname' | 'email' | 'city' | 'is_vegetarian' | 'can_swimm'>;

const editableOf = (user: User): Editable => ({
  firstname: user.firstname,
  lastname: user.lastname,
  email: user.email,
  city: user.city,
  is_vegetarian: user.is_vegetarian,
  can_swimm: user.can_swimm,
});

/** Validation messages of a 422, by field. */
type FieldErrors = Record<string, string[]>;

export function ProfilePage({ onPasswordChanged }: Props) {
  const { words, language, session, report: onTrouble } = useApp();
  const [user, setUser] = useState<User | null>(null);
  const [form, setForm] = useState<Editable | null>(null);
  const [fieldErrors, setFieldErrors] = useState<FieldErrors>({});
  const [saved, setSaved] = useState(false);

  useEffect(() => {
    void client.user().then((result) => {
      if (!result.data) return onTrouble(troubleOf(result.response));
      setUser(result.data);
      setForm(editableOf(result.data));
    });
  }, []);

  if (!user || !form) return <p aria-busy="true">…</p>;
  const set = <K extends keyof Editable>(key: K, value: Editable[K]) => {
    setSaved(false);
    setForm({ ...form, [key]: value });
  };

  const save = async (event: Event) => {
    event.preventDefault();
    const result = await client.api.PATCH('/user', { body: { ...form, city: form.city === '' ? null : form.city } });
    if (result.data) {
      setUser(result.data);
      setFieldErrors({});
      setSaved(true);
    } else if (result.response.status === 422) {
      setFieldErrors((result.error as { errors?: FieldErrors }).errors ?? {});
    } else {
      onTrouble(troubleOf(result.response));
    }
  };

  return (
    <>
      <form class="card" onSubmit={save} aria-labelledby="profile-title">
        <h1 id="profile-title" tabIndex={-1}>{words.profile}</h1>
        <p class="muted">
          {user.username} · {words.memberSince} {formatDate(user.created_at, language, session.timeZone)}
        </p>
        <TextField label={words.firstname} name="firstname" value={form.firstname} errors={fieldErrors.firstname} onChange={(v) => set('firstname', v)} />
        <TextField label={words.lastname} name="lastname" value={form.lastname} errors={fieldErrors.lastname} onChange={(v) => set('lastname', v)} />
        <TextField label={words.email} name="email" type="email" value={form.email} errors={fieldErrors.email} onChange={(v) => set('email', v)} />
        <TextField label={words.city} name="city" value={form.city ?? ''} errors={fieldErrors.city} onChange={(v) => set('city', v)} />
        <label class="check">
          <input type="checkbox" name="is_vegetarian" checked={form.is_vegetarian} onChange={(e) => set('is_vegetarian', (e.target as HTMLInputElement).checked)} />
          {words.vegetarian}
        </label>
        <label class="check">
          <input type="checkbox" name="can_swimm" checked={form.can_swimm} onChange={(e) => set('can_swimm', (e.target as HTMLInputElement).checked)} />
          {words.swimmer}
        </label>
        <button type="submit">{words.save}</button>
        {saved && (
          <p class="success" role="status">
            {words.saved}
          </p>
        )}
      </form>
      <PasswordForm words={words} onTrouble={onTrouble} onChanged={onPasswordChanged} />
    </>
  );
}

function TextField(props: { label: string; name: string; value: string; type?: 'text' | 'email'; errors?: string[] | undefined; onChange: (value: string) => void }) {
  const { language } = useApp();
  const id = `field-${props.name}`;
  return (
    <label for={id}>
      {props.label}
      <input
        id={id}
        name={props.name}
        // Preact's input types tie `list` to some values of `type`; both of ours take the same attributes.
        type={(props.type ?? 'text') as 'text'}
        value={props.value}
        aria-invalid={props.errors ? 'true' : undefined}
        aria-describedby={props.errors ? `${id}-error` : undefined}
        onInput={(e) => props.onChange((e.target as HTMLInputElement).value)}
      />
      {props.errors && (
        <span id={`${id}-error`} class="error">
          {translateApiMessages(props.errors, language)}
        </span>
      )}
    </label>
  );
}

function PasswordForm({ words, onTrouble, onChanged }: { words: Words; onTrouble: (trouble: Trouble) => void; onChanged: () => void }) {
  const { language } = useApp();
  const [current, setCurrent] = useState('');
  const [next, setNext] = useState('');
  const [confirmation, setConfirmation] = useState('');
  const [fieldErrors, setFieldErrors] = useState<FieldErrors>({});

  const submit = async (event: Event) => {
    event.preventDefault();
    const result = await client.api.PUT('/user/password', { body: { current_password: current, password: next, password_confirmation: confirmation } });
    if (result.response.ok) return onChanged();
    if (result.response.status === 422) return setFieldErrors((result.error as { errors?: FieldErrors }).errors ?? {});
    onTrouble(troubleOf(result.response));
  };
  const field = (label: string, name: string, value: string, set: (v: string) => void, autocomplete: string) => (
    <label>
      {label}
      <input name={name} type="password" autocomplete={autocomplete} required value={value} onInput={(e) => set((e.target as HTMLInputElement).value)} />
      {fieldErrors[name] && <span class="error">{translateApiMessages(fieldErrors[name], language)}</span>}
    </label>
  );

  return (
    <form class="card" onSubmit={submit}>
      <h2>{words.changePassword}</h2>
      {field(words.currentPassword, 'current_password', current, setCurrent, 'current-password')}
      {field(words.newPassword, 'password', next, setNext, 'new-password')}
      {field(words.confirmPassword, 'password_confirmation', confirmation, setConfirmation, 'new-password')}
      <button type="submit">{words.changePassword}</button>
    </form>
  );
}
