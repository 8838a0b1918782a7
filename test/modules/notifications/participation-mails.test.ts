import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, PASSWORD } from '../../helpers/app.js';
import { buildWorld, daysFromNow, type World } from '../../helpers/events.js';
import { startTestMailWorker } from '../../helpers/mail-worker.js';
import { startSmtpSink, type ReceivedMail, type SmtpSink } from '../../helpers/smtp-sink.js';
import { sleep, waitFor } from '../../helpers/wait.js';
import { changeTenantSettings } from '../../../src/modules/tenants/rules.js';
import { transact } from '../../../src/recording/recorder.js';
import { releasePlacesOf } from '../../../src/modules/participations/seats.js';
import { tellStateNews, watchStates } from '../../../src/modules/participations/news.js';
import { toDbTimestamp } from '../../../src/lib/time.js';
import { NOTICE_WORDS } from '../../../src/modules/notifications/texts.js';

/** The formal address a German mail never uses: "Sie", "Ihnen", "Ihr" and its forms. */
const FORMAL_GERMAN = /\b(?:Sie|Ihnen|Ihre?[mnrs]?)\b/;

/**
 * The mails the service writes on its own when a participation is created or changes state, or its
 * event moves: read from a real SMTP server, as the families receive them.
 */
describe('participation notifications', () => {
  let sink: SmtpSink;
  let w: World;

  beforeAll(async () => {
    sink = await startSmtpSink();
    const t = await buildTestApp({ SMTP_URL: sink.url, PUBLIC_URL: 'https://{tenant}.club.example.org' });
    await changeTenantSettings(t.storage, 'demo', { name: 'Pfadi Olten', timezone: 'Europe/Zurich' });
    w = await buildWorld(t);
    startTestMailWorker(t);
  }, 60_000);
  afterAll(async () => {
    await w?.t.close();
    await sink?.close();
  });

  const camp = (fields: Record<string, unknown> = {}) =>
    w.event('regionleader', {
      group_id: w.region, name: 'Summer camp', location: 'Scout hut', starts_at: '2031-07-12T07:00:00.000000Z', ends_at: '2031-07-13T15:00:00.000000Z', ...fields,
    });
  /** Waits until `address` has received `count` mails; returns them all. */
  const mailsTo = async (address: string, count: number): Promise<ReceivedMail[]> => {
    await waitFor(() => sink.to(address).length >= count, 10_000, 20);
    return sink.to(address);
  };
  const last = (mails: ReceivedMail[]) => mails[mails.length - 1]!;
  /** A person with a login and an address, a member of troop A. */
  const member = async (username: string, fields: Record<string, unknown> = {}) => {
    const created = await w.call('admin', 'POST', '/people', {
      username, password: PASSWORD, email: `${username}@example.com`, firstname: username[0]!.toUpperCase() + username.slice(1), lastname: 'Scout',
      ...fields, membership: { group_id: w.troopA, role_type: 'member' },
    });
    expect(created.statusCode, created.body).toBe(201);
    return created.json().data.person.id as number;
  };
  const outboxCount = async () => Number((await w.t.storage.tenantDb('demo').selectFrom('mails').select((eb) => eb.fn.countAll().as('n')).executeTakeFirstOrThrow()).n);

  it('confirms a registration by a guardian to the guardian, naming the child, the event, its date, place and state', async () => {
    const event = await camp();
    await w.register('parent', event.id, { person_id: w.ids.child });
    const [mail] = await mailsTo('parent@example.com', 1);
    const { parsed } = mail!;
    expect(parsed.from?.value[0]).toEqual({ address: expect.stringMatching(/^no-reply@/), name: 'Pfadi Olten' });
    expect(parsed.subject).toBe('Charlie: accepted – Summer camp');
    expect(parsed.text).toContain('The registration of Charlie for Summer camp has been received.');
    // 07:00 UTC is 09:00 in Zurich in summer.
    expect(parsed.text).toMatch(/Date: Saturday, July 12, 2031.*9:00/);
    expect(parsed.text).toContain('Place: Scout hut');
    expect(parsed.text).toContain('State: accepted');
    expect(parsed.text).toContain('You receive this mail as guardian of Charlie.');
    expect(parsed.html).toContain('guardian of Charlie');
    // The button and its plain-text link open the event's page, at the tenant's public address.
    expect(parsed.text).toContain(`Open the event:\nhttps://demo.club.example.org/#/events/${event.id}\n`);
    expect(parsed.html).toContain(`href="https://demo.club.example.org/#/events/${event.id}"`);
    expect(String(parsed.html)).not.toMatch(/href="https:\/\/demo\.club\.example\.org\/?"/);
    // The child has no address: the guardian's mail is the only one.
    const rows = await w.t.storage.tenantDb('demo').selectFrom('mails').select(['kind', 'to_address']).execute();
    expect(rows).toEqual([{ kind: 'participation', to_address: 'parent@example.com' }]);
  });

  it('confirms a registration to the person and each guardian with an address, each once', async () => {
    const kid = await member('kim');
    await w.call('admin', 'POST', `/people/${kid}/guardians`, { guardian_id: w.ids.parent });
    await w.call('admin', 'POST', `/people/${kid}/guardians`, { guardian_id: w.ids.outsider });
    const event = await camp({ name: 'Hike' });
    await w.register('regionleader', event.id, { person_id: kid });
    const own = last(await mailsTo('kim@example.com', 1));
    expect(own.parsed.subject).toBe('Kim: accepted – Hike');
    expect(own.parsed.text).toContain('You receive this mail because you are registered for Hike.');
    expect(last(await mailsTo('parent@example.com', 2)).parsed.text).toContain('as guardian of Kim');
    expect(last(await mailsTo('outsider@example.com', 1)).parsed.text).toContain('as guardian of Kim');
  });

  it('tells a waitlisted place, the own cancellation, and the promotion from the waiting list', async () => {
    const first = await member('fiona');
    const second = await member('gus');
    const event = await camp({ name: 'Small camp', capacity: 1, waiting_list: true });
    const [firstToken, secondToken] = [await w.t.login('demo', 'fiona', PASSWORD), await w.t.login('demo', 'gus', PASSWORD)];
    const one = await w.callWith(firstToken, 'POST', `/events/${event.id}/participations`, { person_id: first });
    const two = await w.callWith(secondToken, 'POST', `/events/${event.id}/participations`, { person_id: second });
    expect([one.statusCode, two.statusCode]).toEqual([201, 201]);
    expect(last(await mailsTo('gus@example.com', 1)).parsed.subject).toBe('Gus: on the waiting list, place 1 – Small camp');
    // Fiona cancels herself: she gets a confirmation, Gus moves up.
    const cancelled = await w.callWith(firstToken, 'PATCH', `/participations/${one.json().data.participation.id}`, { state: 'cancelled' });
    expect(cancelled.statusCode, cancelled.body).toBe(200);
    const confirmation = last(await mailsTo('fiona@example.com', 2));
    expect(confirmation.parsed.subject).toBe('Fiona: cancelled – Small camp');
    expect(confirmation.parsed.text).toContain('The registration of Fiona for Small camp has changed.');
    const promotion = last(await mailsTo('gus@example.com', 2));
    expect(promotion.parsed.subject).toBe('Gus: moved up from the waiting list – Small camp');
    expect(promotion.parsed.text).toContain('moved up from the waiting list and is accepted');
    expect(promotion.parsed.text).toContain('State: accepted');
  });

  it("tells a manager's decisions: pending, then accepted or rejected", async () => {
    const a = await member('hanna');
    const b = await member('ivo');
    const event = await camp({ name: 'Course', requires_approval: true });
    const pa = await w.register('regionleader', event.id, { person_id: a });
    const pb = await w.register('regionleader', event.id, { person_id: b });
    expect(last(await mailsTo('hanna@example.com', 1)).parsed.subject).toBe('Hanna: registered, awaiting a decision – Course');
    await w.call('regionleader', 'PATCH', `/participations/${pa.id}`, { state: 'accepted' });
    await w.call('regionleader', 'PATCH', `/participations/${pb.id}`, { state: 'rejected' });
    expect(last(await mailsTo('hanna@example.com', 2)).parsed.subject).toBe('Hanna: accepted – Course');
    expect(last(await mailsTo('ivo@example.com', 2)).parsed.subject).toBe('Ivo: not accepted – Course');
    // A change that leaves the state as it was (notes, attended) writes no mail.
    const before = await outboxCount();
    expect((await w.call('regionleader', 'PATCH', `/participations/${pa.id}`, { notes: 'Vegan', attended: true })).statusCode).toBe(200);
    expect(await outboxCount()).toBe(before);
  });

  it('writes one mail per participation whose final state changed in a bulk change, quoting its message', async () => {
    const people = [await member('jana'), await member('karl'), await member('lea')];
    const event = await camp({ name: 'Called-off camp', capacity: 1, waiting_list: true });
    const placed = [];
    for (const id of people) placed.push(await w.register('regionleader', event.id, { person_id: id }));
    expect(placed.map((p) => p.state)).toEqual(['accepted', 'waitlisted', 'waitlisted']);
    await mailsTo('lea@example.com', 1);
    // Cancelling Jana promotes Karl, then Karl is cancelled too: his final state is cancelled
    // (one mail); Lea is promoted and stays accepted (one mail, the promotion).
    const answer = await w.call('regionleader', 'PATCH', `/events/${event.id}/participations`, {
      participations: [{ id: placed[0]!.id, state: 'cancelled' }, { id: placed[1]!.id, state: 'cancelled' }],
      message: 'The weather forecast is bad.\n\nSorry!',
    });
    expect(answer.statusCode, answer.body).toBe(200);
    const jana = await mailsTo('jana@example.com', 2);
    const karl = await mailsTo('karl@example.com', 2);
    const lea = await mailsTo('lea@example.com', 2);
    await sleep(300);
    expect([sink.to('jana@example.com').length, sink.to('karl@example.com').length, sink.to('lea@example.com').length]).toEqual([2, 2, 2]);
    expect(last(jana).parsed.subject).toBe('Jana: cancelled – Called-off camp');
    expect(last(karl).parsed.subject).toBe('Karl: cancelled – Called-off camp');
    expect(last(lea).parsed.subject).toBe('Lea: moved up from the waiting list – Called-off camp');
    for (const mail of [last(jana), last(karl), last(lea)]) {
      expect(mail.parsed.text).toContain('Message from the organisers:');
      expect(mail.parsed.text).toContain('The weather forecast is bad.');
      expect(mail.parsed.text).toContain('Sorry!');
    }
  });

  it('tells the pending, accepted and waitlisted participations when the event moves in time or place', async () => {
    const people = [await member('mia'), await member('noah'), await member('olga')];
    const event = await camp({ name: 'Moving camp', capacity: 1 });
    const placed = [];
    for (const id of people) placed.push(await w.register('regionleader', event.id, { person_id: id }));
    await w.call('regionleader', 'PATCH', `/participations/${placed[2]!.id}`, { state: 'cancelled' });
    await mailsTo('olga@example.com', 2);
    // A new name is no move: no mail.
    const before = await outboxCount();
    expect((await w.call('regionleader', 'PATCH', `/events/${event.id}`, { name: 'Moved camp', description: 'More' })).statusCode).toBe(200);
    expect(await outboxCount()).toBe(before);
    const moved = await w.call('regionleader', 'PATCH', `/events/${event.id}`, { location: 'Lakeside', starts_at: '2031-07-19T07:00:00.000000Z', ends_at: '2031-07-20T15:00:00.000000Z' });
    expect(moved.statusCode, moved.body).toBe(200);
    const mia = last(await mailsTo('mia@example.com', 2));
    expect(mia.parsed.subject).toBe('Mia: new date or place – Moved camp');
    expect(mia.parsed.text).toContain('This is where the registration of Mia stands now.');
    expect(mia.parsed.text).toContain('Place: Lakeside');
    expect(mia.parsed.text).toMatch(/Saturday, July 19, 2031/);
    expect(mia.parsed.text).toContain('State: accepted');
    expect(last(await mailsTo('noah@example.com', 2)).parsed.text).toContain('State: on the waiting list, place 1');
    await sleep(300);
    // The cancelled participation hears nothing of it.
    expect(sink.to('olga@example.com')).toHaveLength(2);
    // A raised capacity promotes, and says so.
    expect((await w.call('regionleader', 'PATCH', `/events/${event.id}`, { capacity: 2 })).statusCode).toBe(200);
    expect(last(await mailsTo('noah@example.com', 3)).parsed.subject).toBe('Noah: moved up from the waiting list – Moved camp');
  });

  it('sends nothing to an address the SMTP server refused three times', async () => {
    const id = await member('pia');
    const db = w.t.storage.tenantDb('demo');
    await db.insertInto('email_status').values({ user_id: id, email: 'PIA@example.com', refusals: 3, last_error: '550 no such user', since: '2026-01-01 00:00:00.000000', updated_at: '2026-01-01 00:00:00.000000' }).execute();
    const event = await camp({ name: 'Quiet camp' });
    await w.register('regionleader', event.id, { person_id: id });
    const rows = await db.selectFrom('mails').select('to_address').where('to_address', '=', 'pia@example.com').execute();
    expect(rows).toEqual([]);
  });

  it('registers several people at once and confirms each', async () => {
    const people = [await member('quentin'), await member('rosa')];
    const event = await camp({ name: 'Bulk camp' });
    const answer = await w.call('regionleader', 'POST', `/events/${event.id}/participations`, { person_ids: people });
    expect(answer.statusCode, answer.body).toBe(201);
    expect(last(await mailsTo('quentin@example.com', 1)).parsed.subject).toBe('Quentin: accepted – Bulk camp');
    expect(last(await mailsTo('rosa@example.com', 1)).parsed.subject).toBe('Rosa: accepted – Bulk camp');
  });

  it('confirms each of many registrations arriving at once, once', async () => {
    const people: number[] = [];
    for (let i = 0; i < 12; i++) people.push(await member(`storm${i}`));
    const event = await camp({ name: 'Storm camp', capacity: 8 });
    const answers = await Promise.all(people.map((person_id) => w.call('regionleader', 'POST', `/events/${event.id}/participations`, { person_id })));
    expect(answers.map((answer) => answer.statusCode)).toEqual(people.map(() => 201));
    const rows = await w.t.storage.tenantDb('demo').selectFrom('mails').select(['to_address', 'subject']).where('subject', 'like', '%Storm camp').execute();
    expect(rows.map((row) => row.to_address).sort()).toEqual(people.map((_, i) => `storm${i}@example.com`).sort());
    expect(rows.filter((row) => row.subject.includes('accepted')).length).toBe(8);
    expect(rows.filter((row) => row.subject.includes('on the waiting list, place')).length).toBe(4);
  });

  it('tells the promotions an erasure causes in several events, when the erasure watches them', async () => {
    const leaving = await member('tom');
    const waiting = await member('uma');
    const first = await camp({ name: 'First camp', capacity: 1 });
    const second = await camp({ name: 'Second camp', capacity: 1 });
    for (const event of [first, second]) {
      await w.register('regionleader', event.id, { person_id: leaving });
      await w.register('regionleader', event.id, { person_id: waiting });
    }
    await mailsTo('uma@example.com', 2);
    const db = w.t.storage.tenantDb('demo');
    const notifier = { hub: w.t.app.mailHub, letterhead: { slug: 'demo', name: 'Pfadi Olten', locale: 'en' as const, timeZone: 'UTC' } };
    await transact(db, null, async (trx) => {
      watchStates(trx);
      await releasePlacesOf(trx, leaving, toDbTimestamp(new Date()));
      await trx.deleteFrom('participations').where('person_id', '=', leaving).execute();
      await tellStateNews(trx, notifier, null);
    });
    w.t.app.mailHub.wake('demo');
    const subjects = (await mailsTo('uma@example.com', 4)).slice(2).map((mail) => mail.parsed.subject).sort();
    expect(subjects).toEqual(['Uma: moved up from the waiting list – First camp', 'Uma: moved up from the waiting list – Second camp']);
  });

  it("writes in the tenant's language, with the language's date format", async () => {
    // A new language shows at once in the process that set it.
    await changeTenantSettings(w.t.storage, 'demo', { locale: 'de' });
    const id = await member('sven');
    const event = await camp({ name: 'Sommerlager' });
    await w.register('regionleader', event.id, { person_id: id });
    const mail = last(await mailsTo('sven@example.com', 1));
    expect(mail.parsed.subject).toBe('Sven: angenommen – Sommerlager');
    expect(mail.parsed.text).toContain('Datum: Samstag, 12. Juli 2031');
    expect(mail.parsed.text).toContain('Ort: Scout hut');
    expect(mail.parsed.text).toContain('Du erhältst diese E-Mail, weil du für Sommerlager angemeldet bist.');
    await changeTenantSettings(w.t.storage, 'demo', { locale: 'fr' });
    await w.call('regionleader', 'PATCH', `/events/${event.id}`, { location: 'Forêt' });
    const french = last(await mailsTo('sven@example.com', 2));
    expect(french.parsed.subject).toBe('Sven : nouvelle date ou nouveau lieu – Sommerlager');
    expect(french.parsed.text).toContain('Date : samedi 12 juillet 2031');
    expect(french.parsed.text).toContain('Lieu : Forêt');
    await changeTenantSettings(w.t.storage, 'demo', { locale: 'en' });
  });

  it('says "du" in German and "tu" in French, with the typographic apostrophe and "d’" before a vowel', async () => {
    const anna = await member('anna');
    await w.call('admin', 'POST', `/people/${anna}/guardians`, { guardian_id: w.ids.outsider });
    /** The mail to `address` with this subject, once it has arrived. */
    const mailAbout = async (address: string, subject: string) => {
      await waitFor(() => sink.to(address).some((mail) => mail.parsed.subject === subject), 10_000, 20);
      const mail = sink.to(address).find((item) => item.parsed.subject === subject)!;
      return { text: mail.parsed.text ?? '', html: String(mail.parsed.html) };
    };

    await changeTenantSettings(w.t.storage, 'demo', { locale: 'de' });
    const event = await camp({ name: 'Herbstlager' });
    const placed = await w.register('regionleader', event.id, { person_id: anna });
    const own = await mailAbout('anna@example.com', 'Anna: angenommen – Herbstlager');
    const guardian = await mailAbout('outsider@example.com', 'Anna: angenommen – Herbstlager');
    expect(own.text).toContain('Du erhältst diese E-Mail, weil du für Herbstlager angemeldet bist.');
    expect(guardian.text).toContain('Du erhältst diese E-Mail, weil du für Anna erziehungsberechtigt bist.');
    expect(guardian.text).toContain(`Anlass öffnen:\nhttps://demo.club.example.org/#/events/${event.id}\n`);
    for (const mail of [own, guardian]) {
      expect(mail.text).not.toMatch(FORMAL_GERMAN);
      expect(mail.html).not.toMatch(FORMAL_GERMAN);
    }

    await changeTenantSettings(w.t.storage, 'demo', { locale: 'fr' });
    await w.call('regionleader', 'PATCH', `/events/${event.id}`, { location: 'Forêt' });
    const moved = await mailAbout('outsider@example.com', 'Anna : nouvelle date ou nouveau lieu – Herbstlager');
    expect(moved.text).toContain('Voici où en est l’inscription d’Anna.');
    expect(moved.text).toContain('Tu reçois ce message en tant que représentant·e légal·e d’Anna.');
    expect(moved.text).toContain(`Ouvrir l’activité :\nhttps://demo.club.example.org/#/events/${event.id}\n`);
    expect((await mailAbout('anna@example.com', 'Anna : nouvelle date ou nouveau lieu – Herbstlager')).text).toContain('Tu reçois ce message parce que tu es inscrit·e à Herbstlager.');
    await w.call('regionleader', 'PATCH', `/participations/${placed.id}`, { state: 'cancelled' });
    const cancelled = await mailAbout('outsider@example.com', 'Anna : désinscrit·e – Herbstlager');
    expect(cancelled.text).toContain('L’inscription d’Anna à Herbstlager a changé.');
    expect(cancelled.text).toContain('Statut : désinscrit·e');
    for (const mail of [moved, cancelled]) {
      expect(mail.text).not.toMatch(/'|\bde Anna\b|\b[Vv]ous\b|\b[Vv]otre\b/);
      expect(mail.html).not.toContain('&#39;');
      expect(mail.html).toContain('légal·e d’Anna');
    }
    await changeTenantSettings(w.t.storage, 'demo', { locale: 'en' });
  });

  it('has no formal German and no straight apostrophe in French, whatever the cause and state', () => {
    const causes = ['registered', 'changed', 'promoted', 'moved'] as const;
    const states = ['accepted', 'pending', 'waitlisted', 'rejected', 'cancelled'] as const;
    for (const locale of ['de', 'fr'] as const) {
      const words = NOTICE_WORDS[locale];
      const texts = [words.alsoMoved, words.message, words.open, words.footerSelf('Lager'), words.footerGuardian('Emma')];
      for (const cause of causes) {
        texts.push(words.intro(cause, 'Emma', 'Lager'));
        for (const state of states) texts.push(words.subject(cause, 'Emma', 'Lager', words.state(state, 2)), words.state(state, null));
      }
      const all = texts.join('\n');
      if (locale === 'de') expect(all).not.toMatch(FORMAL_GERMAN);
      else {
        expect(all).not.toMatch(/'|\bde Emma\b|\b[Vv]ous\b|\b[Vv]otre\b/);
        expect(all).toContain('d’Emma');
      }
    }
  });
});
