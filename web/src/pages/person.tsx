import { useEffect, useState } from 'preact/hooks';
import type { JSX } from 'preact';
import { answerFor, Field, FormErrors, useFirstErrorFocus, type FieldErrors } from '../components/field.js';
import { profileLabel, type ProfileKind } from '../components/person-fields.js';
import { ProfileEditor, type ReadPerson } from '../components/profile-editor.js';
import { dataOf, useApp } from '../context.js';
import { useLoad } from '../hooks.js';
import { formatDate, formatMoment, type Words } from '../i18n/index.js';
import { personCard } from '../calendars-api.js';
import { fileNamePart, saveFile } from '../save-file.js';
import { client } from '../session.js';
import { GuardiansCard } from './person-guardians.js';
import { MembershipsCard } from './person-memberships.js';
import { PersonAdmin } from './person-admin.js';
import { InviteCard, MailStatus } from './person-mail.js';

export type PersonData = NonNullable<Awaited<ReturnType<typeof readPerson>>['data']>;

/** Everything the page shows, in one request: the person and what goes with them, and what the reader may do. */
async function readPerson(id: number) {
  const result = await client.people.get(id, { include: 'memberships,guardians,wards,participations,can' });
  if (!result.data) return { result, data: null, etag: undefined };
  return { result, data: result.data.data, etag: result.response.headers.get('ETag') ?? undefined };
}

/** A leader's profile form: a person's every field; the login fields only for whom the API allows. */
const PERSON: ProfileKind = { birthday: true, emailMayBeNull: true, ownDetails: false };

/**
 * A person: the profile (edited by those who may), the login, memberships in every group,
 * guardians (linked, created in one step, unlinked), wards, registrations and history.
 */
export function PersonPage({ id }: { id: number }) {
  const app = useApp();
  const { words } = app;
  const [loaded, reload] = useLoad(async () => {
    const read = await readPerson(id);
    return read.data ? read : (dataOf(app, read.result), null);
  }, [id]);
  const [read, setRead] = useState<ReadPerson | null>(null);
  useEffect(() => setRead(loaded?.data ? { person: loaded.data.person, etag: loaded.etag } : null), [loaded]);
  if (!loaded?.data || !read) return <p aria-busy="true">…</p>;
  const data = loaded.data;
  const can = data.can!;
  const { person } = read;
  const kind: ProfileKind = can.change_login ? PERSON : { ...PERSON, locked: { keys: ['email'], hint: words.loginFieldsLocked } };
  const heading = (
    <h1 id="person-title" tabIndex={-1}>
      {person.firstname} {person.lastname}
    </h1>
  );

  return (
    <>
      {can.update ? (
        <ProfileEditor read={read} kind={kind} onSaved={setRead} onStale={reload} labelledBy="person-title">
          {heading}
        </ProfileEditor>
      ) : (
        <section class="card">
          {heading}
          <Facts person={person} />
        </section>
      )}
      <ContactDownload person={person} />
      <MailStatus person={person} mayChange={can.update} />
      {/* Someone who may give a login by mail invites; the person then chooses username and password. */}
      {(can as { invite?: boolean }).invite === true && !person.has_login && <InviteCard person={person} />}
      {/* A first login needs a password: a reader who may not set one (a leader) is offered no form that must fail. */}
      {(person.has_login ? can.change_login || can.set_password : can.set_password) && <Login data={{ ...data, person }} onChanged={reload} />}
      <MembershipsCard person={person} memberships={data.memberships ?? []} onChanged={reload} />
      <GuardiansCard person={person} guardians={data.guardians ?? []} mayChange={can.add_guardian} onChanged={reload} />
      {(data.wards ?? []).length > 0 && (
        <section class="card">
          <h2>{words.wardsOf(person.firstname)}</h2>
          <ul class="list">
            {data.wards!.map((ward) => (
              <li key={ward.id}>
                <a href={`#/people/${ward.id}`}>
                  {ward.firstname} {ward.lastname}
                </a>
              </li>
            ))}
          </ul>
        </section>
      )}
      <Participations participations={data.participations ?? []} />
      <History id={id} />
      {can.delete && <PersonAdmin person={person} etag={read.etag} />}
    </>
  );
}

/** The person as a card for an address book (vCard), with what the reader may see of them. */
function ContactDownload({ person }: { person: { id: number; firstname: string; lastname: string } }) {
  const app = useApp();
  const download = async () => {
    // Asked for with `Accept: text/vcard`, which a plain link cannot send: read, then saved.
    const card = await personCard(person.id);
    if (card.data === undefined || !card.response.ok) return dataOf(app, card);
    saveFile(`${fileNamePart(person.firstname)}-${fileNamePart(person.lastname)}.vcf`, card.data, 'text/vcard');
  };
  return (
    <p class="card downloads">
      <button type="button" class="secondary-dark" onClick={() => void download()}>
        {app.words.downloadContact}
      </button>
    </p>
  );
}

/** What a reader who may not change the person sees of them. */
function Facts({ person }: { person: ReadPerson['person'] }) {
  const { words, language } = useApp();
  const facts: [string, string | null][] = [
    [words.email, person.email],
    [words.birthday, person.birthday && formatDate(`${person.birthday}T12:00:00Z`, language, 'UTC')],
    [words.phonenumber, person.phonenumber],
    [words.phonenumberMobile, person.phonenumber_mobile],
    [words.city, [person.zip, person.city].filter(Boolean).join(' ') || null],
  ];
  return (
    <dl class="facts">
      {facts
        .filter(([, value]) => value)
        .map(([label, value]) => (
          <>
            <dt>{label}</dt>
            <dd>{value}</dd>
          </>
        ))}
    </dl>
  );
}

/**
 * The login, for readers who may change it (the person, the tenant's administrators): a new
 * username or password, or a first login (username and password) given by an administrator.
 */
function Login({ data, onChanged }: { data: PersonData; onChanged: () => void }) {
  const app = useApp();
  const { words } = app;
  const { person } = data;
  const can = data.can!;
  const [username, setUsername] = useState(person.username ?? '');
  const [password, setPassword] = useState('');
  const [errors, setErrors] = useState<FieldErrors>({});
  const form = useFirstErrorFocus(errors);
  const save = async (event: Event) => {
    event.preventDefault();
    const changes = {
      ...(can.change_login && username !== (person.username ?? '') ? { username } : {}),
      ...(can.set_password && password !== '' ? { password } : {}),
    };
    if (Object.keys(changes).length === 0) return;
    if (!answerFor(app, await client.people.update(person.id, changes), setErrors)) return;
    setPassword('');
    app.announce(person.has_login ? words.loginChanged(person.firstname) : words.loginGiven(person.firstname));
    onChanged();
  };
  return (
    <form class="card" onSubmit={save} ref={form} aria-labelledby="login-title">
      <h2 id="login-title">{person.has_login ? words.loginTitle : words.giveLogin}</h2>
      {!person.has_login && <p class="muted">{words.giveLoginHint}</p>}
      <FormErrors errors={errors} shown={['username', 'password']} />
      <Field label={words.username} name="username" value={username} readOnly={!can.change_login} errors={errors.username} autocomplete="off" onInput={setUsername} />
      {can.set_password && (
        <Field label={person.has_login ? words.newPassword : words.password} name="new_password" type="password" value={password} errors={errors.password} autocomplete="new-password" onInput={setPassword} />
      )}
      <div class="actions">
        <button type="submit">{person.has_login ? words.changeLogin : words.giveLogin}</button>
      </div>
    </form>
  );
}

function Participations({ participations }: { participations: NonNullable<PersonData['participations']> }) {
  const { words, language, session } = useApp();
  // Soonest first: what is coming matters most on a person's page.
  const sorted = [...participations].sort((a, b) => (a.event.starts_at < b.event.starts_at ? 1 : a.event.starts_at > b.event.starts_at ? -1 : a.id - b.id));
  return (
    <section class="card">
      <h2>{words.participations}</h2>
      {sorted.length > 0 ? (
        <ul class="list">
          {sorted.map((p) => (
            <li key={p.id}>
              <a href={`#/events/${p.event.id}`}>{p.event.name}</a> <span class="muted">{formatMoment(p.event.starts_at, language, session.timeZone)}</span> · {words[p.state]}
              {p.state === 'waitlisted' && p.waitlist_position !== null && ` (${words.placeOnList(p.waitlist_position)})`}
            </li>
          ))}
        </ul>
      ) : (
        <p class="muted">{words.nothing}</p>
      )}
    </section>
  );
}

/** The words for the other fields a person's history names: their login, memberships and registrations. */
const RECORDED_FIELDS = {
  username: 'username',
  password: 'password',
  start_on: 'startOn',
  end_on: 'endOn',
  label: 'membershipLabel',
  state: 'state',
  role: 'role',
  notes: 'notes',
  attended: 'attendance',
  waitlist_position: 'waitlistPlace',
} as const satisfies Record<string, keyof Words>;

/** A changed field as the reader calls it; one the app has no word for, as the API names it. */
const changedField = (key: string, words: Words): string =>
  profileLabel(key, words) ?? (Object.hasOwn(RECORDED_FIELDS, key) ? words[RECORDED_FIELDS[key as keyof typeof RECORDED_FIELDS]] : key);

/** Only those who may change the person read their history: read when opened (a refusal is said like any). */
function History({ id }: { id: number }) {
  const app = useApp();
  const { words, language, session } = app;
  return (
    <OnDemand title={words.history} load={async () => dataOf(app, await client.changes.ofPerson(id, { limit: 50 }))?.data.changes ?? null}>
      {(history) =>
        history.length > 0 ? (
          <ul class="list">
            {history.map((change) => (
              <li key={change.seq}>
                {formatMoment(change.at, language, session.timeZone)} · {words.changeOf(change.entity, change.action)}
                {change.actor && ` · ${change.actor.firstname} ${change.actor.lastname}`}
                {change.changes && Object.keys(change.changes).length > 0 && <span class="muted"> · {Object.keys(change.changes).map((key) => changedField(key, words)).join(', ')}</span>}
              </li>
            ))}
          </ul>
        ) : (
          <p class="muted">{words.nothing}</p>
        )
      }
    </OnDemand>
  );
}

/** A part of a page read when it is opened: what is rarely looked at costs no request until it is. */
function OnDemand<T>({ title, load, children }: { title: string; load: () => Promise<T | null>; children: (value: T) => JSX.Element }) {
  const [open, setOpen] = useState(false);
  const [value] = useLoad(async () => (open ? load() : null), [open]);
  return (
    <details class="card" onToggle={(event) => setOpen((event.currentTarget as HTMLDetailsElement).open)}>
      <summary>
        <h2>{title}</h2>
      </summary>
      {open && (value === null ? <p aria-busy="true">…</p> : children(value))}
    </details>
  );
}
