import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp } from '../../helpers/app.js';
import { buildWorld, daysFromNow, type World } from '../../helpers/events.js';
import { startTestMailWorker } from '../../helpers/mail-worker.js';
import { startSmtpSink, type ReceivedMail, type SmtpSink } from '../../helpers/smtp-sink.js';
import { waitFor } from '../../helpers/wait.js';
import { changeTenantSettings } from '../../../src/modules/tenants/rules.js';

const MESSAGE_FIELDS = ['id', 'subject', 'body', 'sender', 'to', 'created_at', 'counts'];
const COUNT_FIELDS = ['recipients', 'queued', 'sent', 'failed', 'unreachable'];

/** A day `years` years before today (UTC; the tests' tenant lives in UTC), shifted by `days`. */
function yearsAgo(years: number, days = 0): string {
  const today = new Date();
  const date = new Date(Date.UTC(today.getUTCFullYear() - years, today.getUTCMonth(), today.getUTCDate() + days));
  return date.toISOString().slice(0, 10);
}

/**
 * A leader writes to a group or to an event's participants: whom it reaches, what they receive
 * (read from a real SMTP server), and what the sender sees afterwards.
 */
describe('messages', () => {
  let sink: SmtpSink;
  let w: World;

  beforeAll(async () => {
    sink = await startSmtpSink();
    const t = await buildTestApp({ SMTP_URL: sink.url });
    await changeTenantSettings(t.storage, 'demo', { name: 'Pfadi Olten' });
    w = await buildWorld(t);
    startTestMailWorker(t);
  }, 60_000);
  afterAll(async () => {
    await w?.t.close();
    await sink?.close();
  });

  const send = (who: string, body: unknown, headers?: Record<string, string>) => w.call(who, 'POST', '/messages', body, headers);
  const sent = async (who: string, body: unknown) => {
    const answer = await send(who, body);
    expect(answer.statusCode, answer.body).toBe(201);
    return answer.json().data.message;
  };
  const read = async (id: number, who = 'admin') => {
    const answer = await w.call(who, 'GET', `/messages/${id}`);
    expect(answer.statusCode, answer.body).toBe(200);
    return answer.json().data.message;
  };
  const mailsTo = async (address: string, count: number): Promise<ReceivedMail[]> => {
    await waitFor(() => sink.to(address).length >= count, 10_000, 20);
    return sink.to(address);
  };
  let groups = 0;
  /** A fresh group below the root (admin writes to it). */
  const group = async () => {
    const answer = await w.call('admin', 'POST', '/groups', { parent_id: w.root, name: `Unit ${++groups}` });
    return answer.json().data.group.id as number;
  };
  /** A person without a login, a member of `groupId`. */
  const person = (groupId: number, firstname: string, lastname: string, fields: Record<string, unknown> = {}) => w.person(groupId, firstname, lastname, fields);
  const grant = async (person_id: number, group_id: number, role_type: string) => {
    const answer = await w.call('admin', 'POST', '/memberships', { person_id, group_id, role_type });
    expect(answer.statusCode, answer.body).toBe(201);
  };
  const link = async (ward: number, guardian: number) => {
    const answer = await w.call('admin', 'POST', `/people/${ward}/guardians`, { guardian_id: guardian });
    expect(answer.statusCode, answer.body).toBe(201);
  };

  it("reaches a group's members active today and, for a child without an address, the guardian; the sender gets a copy", async () => {
    const unit = await group();
    const lena = await person(unit, 'Lena', 'Berg', { email: 'lena@example.com' });
    const ended = await person(unit, 'Old', 'Member', { email: 'old@example.com' });
    const child = await person(unit, 'Mia', 'Kid');
    const mum = await person(await group(), 'Maria', 'Kid', { email: 'maria@example.com' });
    await link(child, mum);
    // The old member's membership ended yesterday.
    const db = w.t.storage.tenantDb('demo');
    await db.updateTable('memberships').set({ end_on: yearsAgo(0, -1) }).where('person_id', '=', ended).execute();

    const message = await sent('admin', { subject: 'Bus leaves at 8', body: 'See you at the station.\n\nhttps://example.org/plan <b>', to: { group_id: unit } });
    expect(Object.keys(message)).toEqual(MESSAGE_FIELDS);
    expect(message).toMatchObject({
      subject: 'Bus leaves at 8',
      sender: { id: w.ids.admin, firstname: 'Ada', lastname: 'Admin' },
      to: { group_id: unit, below: false, role_types: null, guardians: 'include' },
      counts: { recipients: 2, queued: 2, sent: 0, failed: 0, unreachable: 0 },
    });
    expect(Object.keys(message.counts)).toEqual(COUNT_FIELDS);
    expect(message).not.toHaveProperty('recipients');

    const [toLena] = await mailsTo('lena@example.com', 1);
    expect(toLena!.parsed.from?.value[0]).toEqual({ address: expect.stringMatching(/^no-reply@/), name: 'Ada Admin via Pfadi Olten' });
    expect(toLena!.parsed.replyTo?.value[0]?.address).toBe('admin@example.com');
    expect(toLena!.parsed.subject).toBe('Bus leaves at 8');
    expect(toLena!.parsed.text).toContain('See you at the station.');
    expect(toLena!.parsed.text).toContain('You receive this message as a member of Unit 1.');
    // Everything escaped; only the http(s) address is a link.
    expect(toLena!.parsed.html).toContain('<a href="https://example.org/plan"');
    expect(toLena!.parsed.html).toContain('&lt;b&gt;');
    const [toMaria] = await mailsTo('maria@example.com', 1);
    expect(toMaria!.parsed.text).toContain('You receive this message as guardian of Mia.');
    const [copy] = await mailsTo('admin@example.com', 1);
    expect(copy!.parsed.text).toContain('This is a copy of your message to Unit 1.');
    expect(sink.to('old@example.com')).toEqual([]);

    // After delivery, each recipient's state follows its mail; name order, a guardian under their own id.
    await waitFor(async () => (await read(message.id)).counts.sent === 2, 10_000);
    const shown = await read(message.id);
    expect(Object.keys(shown)).toEqual([...MESSAGE_FIELDS, 'recipients']);
    expect(shown.recipients).toEqual([
      { person_id: lena, name: 'Lena Berg', email: 'lena@example.com', state: 'sent', error: null },
      { person_id: mum, name: 'Maria Kid', email: 'maria@example.com', state: 'sent', error: null },
    ]);
    expect(shown.counts).toEqual({ recipients: 2, queued: 0, sent: 2, failed: 0, unreachable: 0 });
  });

  it('includes guardians of the under-18s and of members without an address, and lists the unreachable', async () => {
    const unit = await group();
    const parents = await group();
    const minor = await person(unit, 'Ben', 'Young', { email: 'ben@example.com', birthday: yearsAgo(18, 1) });
    const adult = await person(unit, 'Cleo', 'Grown', { email: 'cleo@example.com', birthday: yearsAgo(18) });
    const unknown = await person(unit, 'Dan', 'Unknown', { email: 'dan@example.com' });
    const nobody = await person(unit, 'Eve', 'Nowhere');
    const failing = await person(unit, 'Finn', 'Failing', { email: 'finn@example.com' });
    const benParent = await person(parents, 'Bea', 'Young', { email: 'bea@example.com' });
    const cleoParent = await person(parents, 'Carl', 'Grown', { email: 'carl@example.com' });
    const danParent = await person(parents, 'Dora', 'Unknown', { email: 'dora@example.com' });
    await link(minor, benParent);
    await link(adult, cleoParent);
    await link(unknown, danParent);
    await w.t.storage
      .tenantDb('demo')
      .insertInto('email_status')
      .values({ user_id: failing, email: 'finn@example.com', refusals: 3, last_error: '550 unknown user', since: '2026-01-01 00:00:00.000000', updated_at: '2026-01-01 00:00:00.000000' })
      .execute();

    const include = await sent('admin', { subject: 'Include', body: 'Hello', to: { group_id: unit } });
    expect(include.counts).toEqual({ recipients: 6, queued: 4, sent: 0, failed: 1, unreachable: 1 });
    const recipients = (await read(include.id)).recipients;
    expect(recipients.map((r: { name: string }) => r.name)).toEqual(['Finn Failing', 'Cleo Grown', 'Eve Nowhere', 'Dan Unknown', 'Bea Young', 'Ben Young']);
    expect(recipients.find((r: { person_id: number }) => r.person_id === failing)).toEqual({
      person_id: failing, name: 'Finn Failing', email: 'finn@example.com', state: 'failed', error: 'The e-mail address was refused before.',
    });
    expect(recipients.find((r: { person_id: number }) => r.person_id === nobody)).toEqual({ person_id: nobody, name: 'Eve Nowhere', email: null, state: 'unreachable', error: null });
    expect((await mailsTo('bea@example.com', 1))[0]!.parsed.text).toContain('as guardian of Ben');

    const only = await sent('admin', { subject: 'Only', body: 'Parents', to: { group_id: unit, guardians: 'only' } });
    expect(only.to).toEqual({ group_id: unit, below: false, role_types: null, guardians: 'only' });
    const onlyNames = (await read(only.id)).recipients.map((r: { name: string }) => r.name);
    expect(onlyNames).toEqual(['Carl Grown', 'Eve Nowhere', 'Dora Unknown', 'Bea Young']);

    const none = await sent('admin', { subject: 'None', body: 'Members', to: { group_id: unit, guardians: 'none' } });
    expect(none.counts).toEqual({ recipients: 5, queued: 3, sent: 0, failed: 1, unreachable: 1 });
    await waitFor(() => sink.to('finn@example.com').length === 0 && sink.to('cleo@example.com').length === 2, 10_000);
  });

  it('reaches each address once and never the sender', async () => {
    const unit = await group();
    const kid = await person(unit, 'Gina', 'Twice');
    // The guardian is a member too: one entry, one mail.
    const guardian = await person(unit, 'Hugo', 'Twice', { email: 'hugo@example.com' });
    await link(kid, guardian);
    await grant(w.ids.admin!, unit, 'member');
    const message = await sent('admin', { subject: 'Once', body: 'Once only', to: { group_id: unit } });
    expect(message.counts).toEqual({ recipients: 1, queued: 1, sent: 0, failed: 0, unreachable: 0 });
    const { recipients } = await read(message.id);
    expect(recipients.map((r: { person_id: number }) => r.person_id)).toEqual([guardian]);
    await mailsTo('hugo@example.com', 1);
    const copies = await w.t.storage.tenantDb('demo').selectFrom('mails').select(['kind', 'to_address']).where('message_id', '=', message.id).orderBy('id').execute();
    expect(copies).toEqual([
      { kind: 'message', to_address: 'hugo@example.com' },
      { kind: 'message_copy', to_address: 'admin@example.com' },
    ]);
  });

  it('with below reaches the subtree, needs write on every group of it, and filters by role types', async () => {
    await w.call('admin', 'POST', '/role-types', { key: 'coach', label: 'Coach', permission: 'write', scope: 'group' });
    const top = await group();
    const sub = (await w.call('admin', 'POST', '/groups', { parent_id: top, name: 'Sub' })).json().data.group.id as number;
    await person(top, 'Ida', 'Top', { email: 'ida@example.com' });
    await person(sub, 'Jon', 'Sub', { email: 'jon@example.com' });
    await grant(w.ids.outsider!, top, 'coach');
    await grant(w.ids.member!, sub, 'leader');
    // The coach holds write on the top group alone.
    expect((await sent('outsider', { subject: 'Top', body: 'Top only', to: { group_id: top } })).counts.recipients).toBe(1);
    const refused = await send('outsider', { subject: 'All', body: 'Everyone', to: { group_id: top, below: true } });
    expect(refused.statusCode).toBe(403);
    expect(refused.json()).toEqual({ success: false, message: 'This action is unauthorized.' });
    const all = await sent('admin', { subject: 'All', body: 'Everyone', to: { group_id: top, below: true } });
    // Ida, Jon, the coach and the leader (the sender, admin, is no member here).
    expect(all.counts.recipients).toBe(4);
    // Jon is a member of Sub, not of the top group: the footer says so.
    const topName = (await w.call('admin', 'GET', `/groups/${top}`)).json().data.group.name as string;
    const [toJon] = await mailsTo('jon@example.com', 1);
    expect(toJon!.parsed.text).toContain(`You receive this message as a member of ${topName} or of one of its groups.`);
    const leaders = await sent('admin', { subject: 'Leaders', body: 'Leaders only', to: { group_id: top, below: true, role_types: ['leader'] } });
    expect(leaders.to).toEqual({ group_id: top, below: true, role_types: ['leader'], guardians: 'include' });
    expect((await read(leaders.id)).recipients.map((r: { person_id: number }) => r.person_id)).toEqual([w.ids.member]);
  });

  it("reaches an event's participations in the states asked for, default accepted", async () => {
    const event = await w.event('regionleader', { group_id: w.region, name: 'Camp', starts_at: daysFromNow(30), ends_at: daysFromNow(32), capacity: 1 });
    await w.register('regionleader', event.id, { person_id: w.ids.member });
    await w.register('regionleader', event.id, { person_id: w.ids.child });
    const accepted = await sent('regionleader', { subject: 'Packing list', body: 'Bring boots', to: { event_id: event.id } });
    expect(accepted.to).toEqual({ event_id: event.id, states: ['accepted'], guardians: 'include' });
    expect((await read(accepted.id, 'regionleader')).recipients.map((r: { person_id: number }) => r.person_id)).toEqual([w.ids.member]);
    const waiting = await sent('regionleader', { subject: 'Waiting', body: 'Still waiting', to: { event_id: event.id, states: ['waitlisted'] } });
    expect((await read(waiting.id, 'regionleader')).recipients.map((r: { person_id: number }) => r.person_id)).toEqual([w.ids.parent]);
    await waitFor(() => sink.to('parent@example.com').some((m) => m.parsed.subject === 'Waiting'), 10_000);
    const mail = sink.to('parent@example.com').find((m) => m.parsed.subject === 'Waiting')!;
    expect(mail.parsed.text).toContain('as guardian of Charlie');
    await waitFor(() => sink.to('member@example.com').some((m) => m.parsed.subject === 'Packing list'), 10_000);
    const toMember = sink.to('member@example.com').find((m) => m.parsed.subject === 'Packing list')!;
    expect(toMember.parsed.text).toContain('You receive this message because you are registered for Camp. Replies go to Regionleader Scout.');
    // Managers list the event's messages, newest first; others may not.
    const list = await w.call('regionleader', 'GET', `/messages?event_id=${event.id}`);
    expect(list.statusCode, list.body).toBe(200);
    expect(list.json().data.messages.map((m: { id: number }) => m.id)).toEqual([waiting.id, accepted.id]);
    expect((await w.call('member', 'GET', `/messages?event_id=${event.id}`)).statusCode).toBe(403);
    expect((await w.call('outsider', 'GET', `/messages?event_id=${event.id}`)).json()).toEqual({ success: false, message: 'Event not found.' });
    expect((await w.call('member', 'GET', `/messages/${waiting.id}`)).json()).toEqual({ success: false, message: 'Message not found.' });
    expect((await send('troopleader', { subject: 'x', body: 'y', to: { event_id: event.id } })).statusCode).toBe(403);
    expect((await send('outsider', { subject: 'x', body: 'y', to: { event_id: event.id } })).json()).toEqual({ success: false, message: 'Event not found.' });
  });

  it('refuses what it must: 403, 404, 422', async () => {
    const unit = await group();
    expect((await send('member', { subject: 'x', body: 'y', to: { group_id: unit } })).json()).toEqual({ success: false, message: 'This action is unauthorized.' });
    expect((await send('admin', { subject: 'x', body: 'y', to: { group_id: 999_999 } })).json()).toEqual({ success: false, message: 'Group not found.' });
    const lineBreak = await send('admin', { subject: 'Two\nlines', body: 'y', to: { group_id: unit } });
    expect(lineBreak.statusCode).toBe(422);
    expect(lineBreak.json()).toEqual({ success: false, message: 'The subject field must not contain line breaks.', errors: { subject: ['The subject field must not contain line breaks.'] } });
    const empty = await send('admin', {});
    expect(empty.statusCode).toBe(422);
    expect(Object.keys(empty.json().errors)).toEqual(['subject', 'body', 'to']);
    const long = await send('admin', { subject: 's'.repeat(256), body: 'b'.repeat(20_001), to: { group_id: unit, guardians: 'all' } });
    expect(long.statusCode).toBe(422);
    expect(Object.keys(long.json().errors)).toEqual(['subject', 'body', 'to.guardians']);
    const badStates = await send('admin', { subject: 's', body: 'b', to: { event_id: 1, states: ['gone'] } });
    expect(Object.keys(badStates.json().errors)).toEqual(['to.states.0']);
    const both = await send('admin', { subject: 's', body: 'b', to: { event_id: 1, group_id: unit } });
    expect(both.json().errors).toEqual({ 'to.event_id': ['The to.event id field prohibits to.group id from being present.'] });
    // A token without messages:write.
    const narrow = await w.tokenWith('admin', ['people:read']);
    expect((await w.callWith(narrow, 'POST', '/messages', { subject: 's', body: 'b', to: { group_id: unit } })).json()).toEqual({ success: false, message: 'Invalid ability provided.' });
    expect((await w.call('member', 'GET', `/messages?group_id=${unit}`)).statusCode).toBe(403);
    expect((await w.call('admin', 'GET', '/messages?group_id=999999')).statusCode).toBe(404);
    expect((await w.call('admin', 'GET', '/messages?foo=1')).statusCode).toBe(422);
    expect((await w.call('admin', 'GET', `/messages?group_id=${unit}&event_id=1`)).json().errors).toEqual({ event_id: ['The event id field prohibits group id from being present.'] });
    expect((await w.call('admin', 'GET', '/messages/999999')).json()).toEqual({ success: false, message: 'Message not found.' });
  });

  it("lists the caller's own messages newest first, in pages; a group's for those with write on it", async () => {
    const unit = await group();
    const ids: number[] = [];
    for (const subject of ['One', 'Two', 'Three']) ids.push((await sent('troopleader', { subject, body: 'b', to: { group_id: w.troopA } })).id);
    void unit;
    const first = await w.call('troopleader', 'GET', '/messages?limit=2');
    expect(first.statusCode, first.body).toBe(200);
    const page = first.json().data;
    expect(page.messages.map((m: { id: number }) => m.id)).toEqual([ids[2], ids[1]]);
    expect(page.messages[0]).not.toHaveProperty('recipients');
    expect(Object.keys(page.messages[0])).toEqual(MESSAGE_FIELDS);
    const second = (await w.call('troopleader', 'GET', `/messages?limit=2&cursor=${encodeURIComponent(page.next_cursor)}`)).json().data;
    expect(second.messages.map((m: { id: number }) => m.id)).toEqual([ids[0]]);
    expect(second.next_cursor).toBeNull();
    const byGroup = (await w.call('regionleader', 'GET', `/messages?group_id=${w.troopA}&limit=200`)).json().data;
    expect(byGroup.messages.slice(0, 3).map((m: { id: number }) => m.id)).toEqual([ids[2], ids[1], ids[0]]);
    // Who could send to the group reads the message too.
    expect((await w.call('regionleader', 'GET', `/messages/${ids[0]}`)).statusCode).toBe(200);
  });

  it("lists a message to a group's whole subtree only to those with write on every group of it", async () => {
    const unit = await group();
    const sub = (await w.call('admin', 'POST', '/groups', { parent_id: unit, name: 'Patrol' })).json().data.group.id as number;
    await person(sub, 'Pia', 'Patrol', { email: 'pia@example.com' });
    // `write` on the unit alone (a role of group scope), none on its patrol.
    expect((await w.call('admin', 'POST', '/role-types', { key: 'unit_writer', label: 'Unit writer', permission: 'write', scope: 'group' })).statusCode).toBe(201);
    await grant(w.ids.assistant!, unit, 'unit_writer');
    const whole = await sent('admin', { subject: 'Whole unit', body: 'For the patrol too', to: { group_id: unit, below: true } });
    const own = await sent('assistant', { subject: 'Unit only', body: 'b', to: { group_id: unit } });
    const listed = await w.call('assistant', 'GET', `/messages?group_id=${unit}`);
    expect(listed.statusCode, listed.body).toBe(200);
    expect(listed.json().data.messages.map((m: { id: number }) => m.id)).toEqual([own.id]);
    expect((await w.call('assistant', 'GET', `/messages/${whole.id}`)).json()).toEqual({ success: false, message: 'Message not found.' });
    expect((await w.call('admin', 'GET', `/messages?group_id=${unit}`)).json().data.messages.map((m: { id: number }) => m.id)).toEqual([own.id, whole.id]);
  });

  it('answers a repeat with the same Idempotency-Key as the first time, without sending again', async () => {
    const unit = await group();
    await person(unit, 'Kai', 'Once', { email: 'kai@example.com' });
    const body = { subject: 'Retry', body: 'Once', to: { group_id: unit } };
    const first = await send('admin', body, { 'idempotency-key': 'message-retry-1' });
    const again = await send('admin', body, { 'idempotency-key': 'message-retry-1' });
    expect(first.statusCode).toBe(201);
    expect(again.statusCode).toBe(201);
    expect(again.headers['idempotent-replayed']).toBe('true');
    expect(again.json()).toEqual(first.json());
    const stored = await w.t.storage.tenantDb('demo').selectFrom('messages').select('id').where('subject', '=', 'Retry').execute();
    expect(stored).toHaveLength(1);
  });

  it('says "du" in German and "tu" in French, eliding "de" before a vowel', async () => {
    const unit = await group();
    const unitName = `Unit ${groups}`;
    await person(unit, 'Lena', 'Lang', { email: 'lena.lang@example.com' });
    const anna = await person(unit, 'Anna', 'Kid');
    await link(anna, await person(await group(), 'Olivia', 'Kid', { email: 'olivia@example.com' }));
    /** The text of the mail to `address` with this subject, once it has arrived. */
    const textOf = async (address: string, subject: string) => {
      await waitFor(() => sink.to(address).some((m) => m.parsed.subject === subject), 10_000, 20);
      return sink.to(address).find((m) => m.parsed.subject === subject)!.parsed.text ?? '';
    };

    await changeTenantSettings(w.t.storage, 'demo', { locale: 'de' });
    await sent('admin', { subject: 'Abfahrt', body: 'Der Bus fährt um 8.', to: { group_id: unit } });
    const german = [await textOf('lena.lang@example.com', 'Abfahrt'), await textOf('olivia@example.com', 'Abfahrt'), await textOf('admin@example.com', 'Abfahrt')];
    expect(german[0]).toContain(`Du erhältst diese Nachricht als Mitglied von ${unitName}. Deine Antwort geht an Ada Admin.`);
    expect(german[1]).toContain('Du erhältst diese Nachricht, weil du für Anna erziehungsberechtigt bist.');
    expect(german[2]).toContain(`Dies ist eine Kopie deiner Nachricht an ${unitName}.`);
    for (const text of german) expect(text).not.toMatch(/\b(?:Sie|Ihnen|Ihre?[mnrs]?)\b/);

    await changeTenantSettings(w.t.storage, 'demo', { locale: 'fr' });
    await sent('admin', { subject: 'Départ', body: 'Le bus part à 8 h.', to: { group_id: unit } });
    const french = [await textOf('lena.lang@example.com', 'Départ'), await textOf('olivia@example.com', 'Départ'), await textOf('admin@example.com', 'Départ')];
    expect(french[0]).toContain(`Tu reçois ce message en tant que membre d’${unitName}. Ta réponse parvient à Ada Admin.`);
    expect(french[1]).toContain('Tu reçois ce message en tant que représentant·e légal·e d’Anna.');
    expect(french[2]).toContain(`Voici une copie du message que tu as envoyé à ${unitName}.`);
    for (const text of french) expect(text).not.toMatch(/'|\bde (?:Anna|Unit)\b|\b[Vv]ous\b|\b[Vv]otre\b/);
    await changeTenantSettings(w.t.storage, 'demo', { locale: 'en' });
  });
});
