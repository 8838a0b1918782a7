import { useState } from 'preact/hooks';
import type { JSX } from 'preact';
import { dataOf, useApp, type App } from '../context.js';
import { useLoad } from '../hooks.js';
import { covers } from '../access.js';
import { formatDate, formatMoment, roleTypeLabel } from '../i18n/index.js';
import { client } from '../session.js';
import { EventLink } from './event-name.js';

/** A person: profile, memberships (ended by those who may), guardians, participations, history. */
export function PersonPage({ id }: { id: number }) {
  const app = useApp();
  const { words, language, session } = app;
  const [person] = useLoad(async () => dataOf(app, await client.people.get(id))?.data.person ?? null, [id]);
  const [memberships, reloadMemberships] = useLoad(async () => dataOf(app, await client.people.memberships(id, { limit: 200 }))?.data.memberships ?? null, [id]);
  // The role types came with the sign-in (GET /user/access).
  const roles = app.session.roleTypes;
  // "End membership" asks for the day (today unless changed), then asks again naming what it does.
  const [ending, setEnding] = useState<{ id: number; on: string } | null>(null);
  if (!person) return <p aria-busy="true">…</p>;

  const end = async (membership: { id: number; group_id: number }, on: string) => {
    const group = session.access.groups.get(membership.group_id)?.name ?? String(membership.group_id);
    if (!confirm(words.confirmEndMembership(person.firstname, group, formatDate(`${on}T12:00:00Z`, language, 'UTC')))) return;
    if (!dataOf(app, await client.memberships.update(membership.id, { end_on: on }))) return;
    setEnding(null);
    app.announce(words.membershipEnded(person.firstname, group));
    reloadMemberships();
  };
  const roleOf = (key: string) => roles?.find((role) => role.key === key);
  const roleLabelOf = (key: string) => {
    const role = roleOf(key);
    return role ? roleTypeLabel(role, language) : key;
  };
  // Open-ended, and a role no higher than the caller's own there.
  const endable = (m: { group_id: number; role_type: string; end_on: string | null }) => {
    const role = roleOf(m.role_type);
    return m.end_on === null && role !== undefined && covers(session.access.permissionOn(m.group_id), role.permission) && session.access.atLeast(m.group_id, 'write');
  };
  const day = (value: string) => formatDate(`${value}T12:00:00Z`, language, 'UTC');

  return (
    <>
      <section class="card">
        <h1 tabIndex={-1}>
          {person.firstname} {person.lastname}
        </h1>
        <dl class="facts">
          {person.email && (
            <>
              <dt>{words.email}</dt>
              <dd>{person.email}</dd>
            </>
          )}
          {person.birthday && (
            <>
              <dt>{words.birthday}</dt>
              <dd>{day(person.birthday)}</dd>
            </>
          )}
          {person.city && (
            <>
              <dt>{words.city}</dt>
              <dd>{person.city}</dd>
            </>
          )}
        </dl>
      </section>
      <section class="card">
        <h2>{words.memberships}</h2>
        <ul class="list">
          {(memberships ?? []).map((m) => (
            <li key={m.id}>
              <a href={`#/groups/${m.group_id}`}>{session.access.groups.get(m.group_id)?.name ?? m.group_id}</a> · {roleLabelOf(m.role_type)} ·{' '}
              {words.since} {day(m.start_on)}
              {m.end_on && ` – ${day(m.end_on)}`}
              {endable(m) && ending?.id !== m.id && (
                <button type="button" class="link" onClick={() => setEnding({ id: m.id, on: session.today })}>
                  {words.endMembership}
                </button>
              )}
              {ending?.id === m.id && (
                <form
                  class="inline-form"
                  onSubmit={(e) => {
                    e.preventDefault();
                    void end(m, ending.on);
                  }}
                >
                  <label>
                    {words.endOn}
                    <input type="date" required min={m.start_on} value={ending.on} onInput={(e) => setEnding({ id: m.id, on: (e.target as HTMLInputElement).value })} />
                  </label>
                  <div class="actions">
                    <button type="submit">{words.endMembership}</button>
                    <button type="button" class="link" onClick={() => setEnding(null)}>
                      {words.cancel}
                    </button>
                  </div>
                </form>
              )}
            </li>
          ))}
        </ul>
      </section>
      <OnDemand title={words.guardians} load={async () => dataOf(app, await client.people.guardians(id))?.data.guardians ?? null}>
        {(guardians) =>
          guardians.length > 0 ? (
            <ul class="list">
              {guardians.map((g) => (
                <li key={g.id}>
                  <a href={`#/people/${g.id}`}>
                    {g.firstname} {g.lastname}
                  </a>
                </li>
              ))}
            </ul>
          ) : (
            <p class="muted">{words.nothing}</p>
          )
        }
      </OnDemand>
      <OnDemand title={words.participations} load={() => participationsWithEvents(app, id)}>
        {(participations) =>
          participations.length > 0 ? (
            <ul class="list">
              {participations.map(({ participation: p, eventName }) => (
                <li key={p.id}>
                  {eventName === undefined ? <EventLink id={p.event_id} /> : <a href={`#/events/${p.event_id}`}>{eventName}</a>} · {words[p.state]}
                </li>
              ))}
            </ul>
          ) : (
            <p class="muted">{words.nothing}</p>
          )
        }
      </OnDemand>
      {/* Only those who may change the person read their history: a 403 is said like any refusal. */}
      <OnDemand title={words.history} load={async () => dataOf(app, await client.changes.ofPerson(id, { limit: 20 }))?.data.changes ?? null}>
        {(history) =>
          history.length > 0 ? (
            <ul class="list">
              {history.map((change) => (
                <li key={change.seq}>
                  {formatMoment(change.at, language, session.timeZone)} · {words.changeOf(change.entity, change.action)}
                  {change.actor && ` · ${change.actor.firstname} ${change.actor.lastname}`}
                </li>
              ))}
            </ul>
          ) : (
            <p class="muted">{words.nothing}</p>
          )
        }
      </OnDemand>
    </>
  );
}

/**
 * A part of a page read when it is opened: the page view itself stays within two requests (the
 * person and their memberships), and what is rarely looked at costs nothing until it is.
 */
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

/**
 * A person's registrations with their events' names: the names from one page of the events the
 * caller sees (those of the last year and to come), an event beyond it by its own request.
 */
async function participationsWithEvents(app: Pick<App, 'report'>, personId: number) {
  const [participations, events] = await Promise.all([
    client.participations.ofPerson(personId, { limit: 50 }),
    client.events.list({ from: new Date(Date.now() - 365 * 86_400_000).toISOString(), limit: 200 }),
  ]);
  const list = dataOf(app, participations)?.data.participations;
  if (!list) return null;
  const names = new Map((events.data?.data.events ?? []).map((event) => [event.id, event.name]));
  return list.map((participation) => ({ participation, eventName: names.get(participation.event_id) }));
}
