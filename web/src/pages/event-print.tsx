import type { ComponentChildren } from 'preact';
import { dataOf, useApp } from '../context.js';
import { useLoad } from '../hooks.js';
import { formatMoment } from '../i18n/index.js';
import { client } from '../session.js';

type ParticipantList = Exclude<NonNullable<Awaited<ReturnType<typeof client.participations.list>>['data']>, string>;
type Entry = ParticipantList['data']['participations'][number];

/** The registrations that are still on: the printed list leaves out the cancelled and rejected. */
const LIVE: Entry['state'][] = ['accepted', 'pending', 'waitlisted'];
const nameOf = (p: { firstname: string; lastname: string }) => `${p.firstname} ${p.lastname}`;

/**
 * Reads the event and its participants with the details (each person's answers and guardians;
 * the first page adds the event's numbers): two requests at once, and one more for each further
 * 200 participants, since paper needs them all.
 */
async function loadSheets(app: Parameters<typeof dataOf>[0], id: number) {
  const query = { include: 'details', limit: 200 } as const;
  const [eventAnswer, firstAnswer] = await Promise.all([client.events.get(id), client.participations.list(id, query)]);
  const event = dataOf(app, eventAnswer)?.data.event;
  const first = dataOf(app, firstAnswer);
  // JSON, not the CSV the same list also answers.
  if (!event || !first || typeof first === 'string') return null;
  const participations = [...first.data.participations];
  for (let cursor = first.data.next_cursor; cursor !== null; ) {
    const next = dataOf(app, await client.participations.list(id, { ...query, cursor }));
    if (!next || typeof next === 'string') return null;
    participations.push(...next.data.participations);
    cursor = next.data.next_cursor;
  }
  return { event, participations, summary: first.data.summary ?? null, readAt: new Date().toISOString() };
}

/** An event's participant list, kitchen and lifeguard sheet with the guardians' numbers, for A4 paper (each sheet on a page of its own). */
export function EventPrintPage({ id }: { id: number }) {
  const app = useApp();
  const { words, language, session } = app;
  const [loaded] = useLoad(() => loadSheets(app, id), [id]);
  if (!loaded) return <p aria-busy="true">…</p>;
  const { event, participations, summary } = loaded;
  const moment = (iso: string) => formatMoment(iso, language, session.timeZone);
  const yesNo = (answer: boolean | undefined) => (answer === undefined ? '' : answer ? words.yes : words.no);
  const roles: Record<Entry['role'], string> = { participant: words.roleParticipant, helper: words.roleHelper, leader: words.roleOfLeader };
  const listed = participations.filter((p) => LIVE.includes(p.state));
  const accepted = participations.filter((p) => p.state === 'accepted');
  const vegetarians = accepted.filter((p) => p.person.is_vegetarian === true);

  return (
    <>
      <section class="card" aria-labelledby="print-title">
        <p class="muted no-print">
          <a href={`#/events/${id}`}>{words.backToEvent}</a>
        </p>
        <h1 id="print-title" tabIndex={-1}>
          {event.name}
        </h1>
        <p class="muted">
          {moment(event.starts_at)} – {moment(event.ends_at)}
          {event.location && ` · ${event.location}`}
        </p>
        <p class="muted">{words.asOf(moment(loaded.readAt))}</p>
        <button type="button" onClick={() => window.print()}>
          {words.print}
        </button>
      </section>

      <Sheet id="sheet-participants" title={`${words.participantList} (${listed.length})`}>
        <p class="muted">{words.liveOnly}</p>
        {listed.length === 0 ? (
          <p>{words.none}</p>
        ) : (
          <Table label={words.participantList} head={[words.name, words.role, words.state, words.waitlistPlace, words.notes, words.vegetarian, words.swimmer]}>
            {listed.map((p) => (
              <tr key={p.id}>
                <td>{nameOf(p.person)}</td>
                <td>{roles[p.role]}</td>
                <td>{words[p.state]}</td>
                <td>{p.waitlist_position ?? ''}</td>
                <td class="notes">{p.notes ?? ''}</td>
                <td>{yesNo(p.person.is_vegetarian)}</td>
                <td>{yesNo(p.person.can_swimm)}</td>
              </tr>
            ))}
          </Table>
        )}
      </Sheet>

      {summary && (
        <Sheet id="sheet-kitchen" title={words.kitchenSheet}>
          <p class="muted">{words.kitchenHint}</p>
          <dl class="facts" data-testid="kitchen">
            <dt>{words.participants}</dt>
            <dd>{summary.accepted}</dd>
            <dt>{words.helpers}</dt>
            <dd>{summary.helpers}</dd>
            <dt>{words.leaders}</dt>
            <dd>{summary.leaders}</dd>
            <dt>{words.everyoneAccepted}</dt>
            <dd>{summary.accepted + summary.helpers + summary.leaders}</dd>
            <dt>{words.vegetariansCount}</dt>
            <dd>{summary.vegetarians}</dd>
          </dl>
          <h3>{words.whoIsVegetarian}</h3>
          {vegetarians.length === 0 ? (
            <p>{words.none}</p>
          ) : (
            <ul class="list" aria-label={words.whoIsVegetarian}>
              {vegetarians.map((p) => (
                <li key={p.id}>
                  {nameOf(p.person)} ({roles[p.role]})
                </li>
              ))}
            </ul>
          )}
        </Sheet>
      )}

      {summary && (
        <Sheet id="sheet-lifeguard" title={words.lifeguardSheet}>
          <h3>
            {words.notSwimmers} ({summary.non_swimmers.length})
          </h3>
          {summary.non_swimmers.length === 0 ? (
            <p>{words.everyoneSwims}</p>
          ) : (
            <ul class="list" aria-label={words.notSwimmers}>
              {summary.non_swimmers.map((person) => (
                <li key={person.id}>{nameOf(person)}</li>
              ))}
            </ul>
          )}
        </Sheet>
      )}

      <Sheet id="sheet-guardians" title={words.emergencyContacts}>
        {accepted.length === 0 ? (
          <p>{words.none}</p>
        ) : (
          <Table label={words.emergencyContacts} head={[words.roleParticipant, words.guardian, words.phonenumber, words.phonenumberMobile, words.email]}>
            {accepted.flatMap((p) => {
              const guardians = p.person.guardians ?? [];
              if (guardians.length === 0) {
                return [
                  <tr key={p.id}>
                    <td>{nameOf(p.person)}</td>
                    <td colSpan={4} class="muted">
                      {words.noGuardian}
                    </td>
                  </tr>,
                ];
              }
              return guardians.map((guardian) => (
                <tr key={`${p.id}-${guardian.id}`}>
                  <td>{nameOf(p.person)}</td>
                  <td>{nameOf(guardian)}</td>
                  <td class="phone">{guardian.phonenumber ?? ''}</td>
                  <td class="phone">{guardian.phonenumber_mobile ?? ''}</td>
                  <td class="email">{guardian.email ?? ''}</td>
                </tr>
              ));
            })}
          </Table>
        )}
      </Sheet>
    </>
  );
}

/** One sheet of paper: printed on a page of its own. */
function Sheet({ id, title, children }: { id: string; title: string; children: ComponentChildren }) {
  return (
    <section class="card print-sheet" aria-labelledby={id}>
      <h2 id={id}>{title}</h2>
      {children}
    </section>
  );
}

/** A table that scrolls in its own box on a phone and repeats its header row on every printed page. */
function Table({ label, head, children }: { label: string; head: string[]; children: ComponentChildren }) {
  return (
    <div class="table-scroll" tabIndex={0} role="region" aria-label={label}>
      <table class="table print-table">
        <thead>
          <tr>
            {head.map((title) => (
              <th scope="col" key={title}>
                {title}
              </th>
            ))}
          </tr>
        </thead>
        <tbody>{children}</tbody>
      </table>
    </div>
  );
}
