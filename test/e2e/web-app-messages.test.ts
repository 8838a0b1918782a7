import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { translateApiMessage } from '../../web/src/i18n/api-messages.js';
import { formatNumber } from '../../web/src/i18n/index.js';
import { browserAvailable, launchChromium, ofThisPass } from '../helpers/browser.js';
import { startSmtpSink, type SmtpSink } from '../helpers/smtp-sink.js';
import { waitFor } from '../helpers/wait.js';
import { startWebServer, type WebServer } from '../helpers/web-server.js';
import { answer, check, messageBeside, named, requestsDuring, serverLogOnFailure, signIn, type Journey } from '../helpers/web-journey.js';

const ZONE = 'Europe/Zurich';
const PASSWORD = 'a password for the camp';

/**
 * Every question the page asks (`confirm`), answered from a queue of replies (no when none is
 * queued): a question asked where none should be is recorded, never left open.
 */
function questionsOf(page: Page) {
  const asked: string[] = [];
  const replies: boolean[] = [];
  page.on('dialog', (dialog) => {
    asked.push(dialog.message());
    void (replies.shift() ? dialog.accept() : dialog.dismiss());
  });
  return { asked, answerNextWith: (yes: boolean) => replies.push(yes) };
}

/** The number shown beside a count's label on a message page. */
const countShown = (page: Page, label: string) =>
  page.evaluate((text) => {
    const terms = [...document.querySelectorAll('dt')].filter((term) => term.textContent === text);
    return terms.at(-1)?.nextElementSibling?.textContent ?? null;
  }, label);

/** Whether the element that has the focus shows `text`. */
const focusedShows = (page: Page, text: string) => page.evaluate((shown) => document.activeElement?.textContent === shown, text);

/**
 * Writing to a group and to an event's participants in Debian's Chromium against the built server,
 * which sends through a real SMTP server (the test's sink): the fields' messages beside them before
 * any question, a selection that holds nobody said beside "Who gets it" (nothing sent), the
 * question naming exactly who gets it and how many, then the message's own page naming the target,
 * whose states change as the mails go out. German and French, at 360 and 1280 px; outcomes read
 * back through the API and the sink.
 */
describe.runIf(browserAvailable)('the web app: writing messages', () => {
  let web: WebServer;
  let sink: SmtpSink;
  let browser: Browser;
  const ids = {} as Record<'root' | 'troop' | 'beavers' | 'lea' | 'max' | 'mia' | 'ben' | 'event', number>;
  const api = (method: string, path: string, body?: object) => web.apiOk(method, path, body);
  const mailed = (address: string, subject: string) => sink.to(address).some((mail) => mail.parsed.subject === subject);
  const newestOf = async (query: string) => (await api('GET', `/messages?${query}`)).data.messages[0];

  beforeAll(async () => {
    sink = await startSmtpSink();
    web = await startWebServer('messages', {
      SMTP_URL: sink.url,
      // A mail refused for now is tried again soon: the message page sees it go from queued to sent.
      MAIL_RETRY_SCHEDULE: '4,4,4,4,4',
      RATE_LIMIT_AUTHENTICATED: '100000',
      TZ: ZONE,
    });
    ids.root = (await api('GET', '/groups?limit=1')).data.groups[0].id;
    ids.troop = (await api('POST', '/groups', { parent_id: ids.root, name: 'Falken' })).data.group.id;
    ids.beavers = (await api('POST', '/groups', { parent_id: ids.troop, name: 'Biber' })).data.group.id;
    const person = async (fields: object) => (await api('POST', '/people', fields)).data.person.id as number;
    ids.lea = await person({ firstname: 'Lea', lastname: 'Lindt', email: 'lea@example.org', username: 'lea', password: PASSWORD, membership: { group_id: ids.troop, role_type: 'leader' } });
    ids.max = await person({ firstname: 'Max', lastname: 'Meier', email: 'max@example.org', birthday: '1990-05-01', membership: { group_id: ids.troop, role_type: 'member' } });
    ids.mia = await person({ firstname: 'Mia', lastname: 'Muster', birthday: '2015-03-04', membership: { group_id: ids.troop, role_type: 'member' } });
    await person({ firstname: 'Paula', lastname: 'Muster', email: 'paula@example.org', guardian_of: ids.mia });
    ids.ben = await person({ firstname: 'Ben', lastname: 'Biber', email: 'ben@example.org', birthday: '1995-01-01', membership: { group_id: ids.beavers, role_type: 'member' } });
    const starts = new Date(Date.now() + 30 * 86_400_000);
    ids.event = (
      await api('POST', '/events', { group_id: ids.troop, name: 'Sommerlager', starts_at: starts.toISOString(), ends_at: new Date(starts.getTime() + 5 * 86_400_000).toISOString() })
    ).data.event.id;
    await api('POST', `/events/${ids.event}/participations`, { person_ids: [ids.max, ids.mia] });
    browser = await launchChromium();
  }, 90_000);
  afterAll(async () => {
    await browser?.close();
    await web?.stop();
    await sink?.close();
  });

  const signInLea = (language: 'de' | 'fr', width: number, name: string) => signIn({ web, browser, username: 'lea', password: PASSWORD, language, width, timeZone: ZONE, name });

  /** Opens the form from its page's link: no read (a group) or one (an event). */
  async function openForm(journey: Journey, from: string, link: string) {
    await journey.page.evaluate((hash) => (location.hash = hash), from);
    await journey.page.getByRole('link', { name: link, exact: true }).click();
    await journey.page.getByRole('heading', { level: 1, name: link, exact: true }).waitFor();
    await journey.settled();
  }

  /** Empty fields, then a subject too long: each said beside its field, focused, before any question or request. */
  async function refusedBesideTheFields(journey: Journey, questions: ReturnType<typeof questionsOf>) {
    const { page, words, language } = journey;
    const send = () => page.getByRole('button', { name: words.sendMessage, exact: true }).click();
    expect(await requestsDuring(journey, send)).toEqual([]);
    await expect.poll(() => messageBeside(page, words.subject)).toContain(translateApiMessage('The subject field is required.', language));
    expect(await messageBeside(page, words.messageText)).toContain(translateApiMessage('The body field is required.', language));
    expect(await page.getByLabel(words.subject, { exact: true }).evaluate((field) => field === document.activeElement)).toBe(true);
    await check(journey, 'empty fields');

    // 256 characters once the spaces around are gone (the subject sent is the trimmed one).
    const long = ` ${'x'.repeat(256)} `;
    await page.getByLabel(words.subject, { exact: true }).fill(long);
    await page.getByLabel(words.messageText, { exact: true }).fill('Bitte Pelerine mitnehmen.');
    expect(await requestsDuring(journey, send)).toEqual([]);
    await expect.poll(() => messageBeside(page, words.subject)).toContain(translateApiMessage('The subject field must not be greater than 255 characters.', language));
    expect(await messageBeside(page, words.messageText)).not.toContain(translateApiMessage('The body field is required.', language));
    await expect(page.getByLabel(words.subject, { exact: true }).inputValue()).resolves.toBe(long);
    expect(questions.asked).toEqual([]);
  }

  it('writes to a group: the fields\' messages first, nobody selected said beside "who gets it", the question names who and how many, then the message\'s page', async () => {
    serverLogOnFailure(web);
    for (const { language, width } of ofThisPass([
      { language: 'de', width: 360 },
      { language: 'fr', width: 1280 },
    ] as const)) {
      const leader = await signInLea(language, width, 'messages-group');
      const { page, words } = leader;
      const questions = questionsOf(page);
      await openForm(leader, `#/groups/${ids.troop}`, words.writeToGroup);
      await refusedBesideTheFields(leader, questions);
      const subject = `Elternabend ${language}`;
      await page.getByLabel(words.subject, { exact: true }).fill(subject);
      const before = (await api('GET', `/messages?group_id=${ids.troop}`)).data.messages.length;

      // Only assistants: Falken has none. One count, no question, nothing sent.
      await page.getByLabel(words.roleAssistant, { exact: true }).check();
      const send = () => page.getByRole('button', { name: words.sendMessage, exact: true }).click();
      expect(await requestsDuring(leader, send)).toEqual([`GET /api/groups/${ids.troop}/members`]);
      await page.getByRole('group', { name: words.whoGetsIt, exact: true }).getByText(words.nobodyInGroup, { exact: true }).waitFor();
      await expect.poll(() => focusedShows(page, words.nobodyInGroup)).toBe(true);
      expect(questions.asked).toEqual([]);
      expect((await api('GET', `/messages?group_id=${ids.troop}`)).data.messages.length).toBe(before);
      await check(leader, 'nobody selected');

      // Only leaders: Lea alone, and the sender is never a recipient. Nobody either.
      await page.getByLabel(words.roleAssistant, { exact: true }).uncheck();
      await page.getByLabel(words.roleLeader, { exact: true }).check();
      expect(await requestsDuring(leader, send)).toEqual([`GET /api/groups/${ids.troop}/members`]);
      await page.getByRole('group', { name: words.whoGetsIt, exact: true }).getByText(words.nobodyInGroup, { exact: true }).waitFor();
      expect(questions.asked).toEqual([]);
      await page.getByLabel(words.roleLeader, { exact: true }).uncheck();
      await page.getByLabel(words.roleAssistant, { exact: true }).check();

      // Members of Falken and Biber, to their guardians only: Max, Mia and Ben, and so Mia's mother.
      await page.getByLabel(words.roleAssistant, { exact: true }).uncheck();
      await page.getByLabel(words.roleMember, { exact: true }).check();
      await page.getByLabel(words.includeSubgroups, { exact: true }).check();
      await answer(page, words.parentsLegend, words.guardiansOnly).check();
      // Refused for now: the message page shows it queued, then sent once the retry gets through.
      sink.answers.set('paula@example.org', { code: 451, message: '4.3.0 Try again later' });
      const refusedBefore = sink.refusals;
      questions.answerNextWith(true);
      const sending = await requestsDuring(leader, async () => {
        await send();
        await page.getByRole('heading', { level: 1, name: subject, exact: true }).waitFor();
      });
      const sent = await newestOf(`group_id=${ids.troop}`);
      expect(questions.asked).toEqual([
        words.confirmSend(
          subject,
          [words.toTarget(words.withSubgroups('Falken')), words.rolesChosen(words.roleMember), words.guardiansOnly, words.membersSelected(3, formatNumber(3, language))].join('\n'),
        ),
      ]);
      // One count, the message, and its page's one read.
      expect(sending).toEqual([`GET /api/groups/${ids.troop}/members`, 'POST /api/messages', `GET /api/messages/${sent.id}`].sort());
      expect(sent).toMatchObject({ subject, body: 'Bitte Pelerine mitnehmen.', to: { group_id: ids.troop, below: true, role_types: ['member'], guardians: 'only' } });
      expect(await page.evaluate(() => location.hash)).toBe(`#/messages/${sent.id}`);
      await page.getByRole('status').filter({ hasText: words.messageSent }).waitFor();

      // The target as it was chosen: the group with its subgroups, the roles, the guardians.
      expect(await page.getByRole('link', { name: words.withSubgroups('Falken'), exact: true }).getAttribute('href')).toBe(`#/groups/${ids.troop}`);
      await page.getByText(words.rolesChosen(words.roleMember), { exact: true }).waitFor();
      await page.getByText(words.guardiansOnly, { exact: true }).waitFor();
      await expect.poll(() => countShown(page, words.mailQueued)).toBe(formatNumber(1, language));
      await page.getByText(words.stillQueued, { exact: true }).waitFor();
      await check(leader, 'sent, still queued');

      // The retry gets through: the page reads the message again by itself and shows it sent.
      await waitFor(() => sink.refusals > refusedBefore, 10_000);
      sink.answers.delete('paula@example.org');
      const landed = leader.requests.length;
      await waitFor(() => mailed('paula@example.org', subject), 20_000, 100);
      const row = page.getByRole('region', { name: words.recipients }).getByRole('row').filter({ hasText: 'Paula Muster' });
      await expect.poll(() => row.innerText(), { timeout: 30_000 }).toContain(words.mailSent);
      expect(await countShown(page, words.mailQueued)).toBe(formatNumber(0, language));
      expect(new Set(named(leader.requests.slice(landed)))).toEqual(new Set([`GET /api/messages/${sent.id}`]));
      // Guardians only: the adult members get nothing.
      expect(mailed('max@example.org', subject) || mailed('ben@example.org', subject)).toBe(false);
      expect((await api('GET', `/messages/${sent.id}`)).data.message.counts).toMatchObject({ queued: 0, sent: 1 });

      // "Refresh" reads the message alone.
      expect(await requestsDuring(leader, () => page.getByRole('button', { name: words.refresh, exact: true }).click())).toEqual([`GET /api/messages/${sent.id}`]);
      await check(leader, 'sent, delivered');
      expect(leader.found).toEqual([]);
      await leader.close();
    }
  }, 240_000);

  it('writes to an event\'s participants: nobody in the chosen states is said first; the question and the message page name the event', async () => {
    serverLogOnFailure(web);
    for (const { language, width } of ofThisPass([
      { language: 'fr', width: 360 },
      { language: 'de', width: 1280 },
    ] as const)) {
      const leader = await signInLea(language, width, 'messages-event');
      const { page, words } = leader;
      const questions = questionsOf(page);
      await openForm(leader, `#/events/${ids.event}`, words.writeToParticipants);
      const subject = `Packliste ${language}`;
      await page.getByLabel(words.subject, { exact: true }).fill(subject);
      await page.getByLabel(words.messageText, { exact: true }).fill('Schlafsack, Taschenlampe.');
      const before = (await api('GET', `/messages?event_id=${ids.event}`)).data.messages.length;

      // Pending only: no one is. One read of the event's numbers, no question, nothing sent.
      await page.getByLabel(words.accepted, { exact: true }).uncheck();
      await page.getByLabel(words.pending, { exact: true }).check();
      const send = () => page.getByRole('button', { name: words.sendMessage, exact: true }).click();
      expect(await requestsDuring(leader, send)).toEqual([`GET /api/events/${ids.event}/summary`]);
      await page.getByRole('group', { name: words.whoGetsIt, exact: true }).getByText(words.nobodyInEvent, { exact: true }).waitFor();
      await expect.poll(() => focusedShows(page, words.nobodyInEvent)).toBe(true);
      expect(questions.asked).toEqual([]);
      expect((await api('GET', `/messages?event_id=${ids.event}`)).data.messages.length).toBe(before);
      await check(leader, 'no participant selected');

      // Accepted and waiting list, no guardians: Max and Mia are accepted.
      await page.getByLabel(words.pending, { exact: true }).uncheck();
      await page.getByLabel(words.accepted, { exact: true }).check();
      await page.getByLabel(words.waitlisted, { exact: true }).check();
      await answer(page, words.parentsLegend, words.guardiansNoneParticipants).check();
      // Asked, and answered no: nothing is sent, the form stays as it was.
      expect(await requestsDuring(leader, send)).toEqual([`GET /api/events/${ids.event}/summary`]);
      const question = words.confirmSend(
        subject,
        [
          words.toTarget(words.participantsOf('Sommerlager')),
          words.statesChosen(`${words.accepted}, ${words.waitlisted}`),
          words.guardiansNoneParticipants,
          words.participantsSelected(2, formatNumber(2, language)),
        ].join('\n'),
      );
      expect(questions.asked).toEqual([question]);
      expect((await api('GET', `/messages?event_id=${ids.event}`)).data.messages.length).toBe(before);
      await expect(page.getByLabel(words.subject, { exact: true }).inputValue()).resolves.toBe(subject);

      questions.answerNextWith(true);
      const sending = await requestsDuring(leader, async () => {
        await send();
        await page.getByRole('heading', { level: 1, name: subject, exact: true }).waitFor();
      });
      const sent = await newestOf(`event_id=${ids.event}`);
      expect(questions.asked).toEqual([question, question]);
      // The message's page: the message, and the event for its name.
      expect(sending).toEqual([`GET /api/events/${ids.event}/summary`, 'POST /api/messages', `GET /api/messages/${sent.id}`, `GET /api/events/${ids.event}`].sort());
      expect(sent).toMatchObject({ subject, to: { event_id: ids.event, states: ['accepted', 'waitlisted'], guardians: 'none' } });
      await page.getByRole('status').filter({ hasText: words.messageSent }).waitFor();
      expect(await page.getByRole('link', { name: 'Sommerlager', exact: true }).getAttribute('href')).toBe(`#/events/${ids.event}`);
      await page.getByText(words.statesChosen(`${words.accepted}, ${words.waitlisted}`), { exact: true }).waitFor();
      await page.getByText(words.guardiansNoneParticipants, { exact: true }).waitFor();
      await check(leader, 'sent to participants');

      // Max gets it; Mia has no address and, without guardians, is listed as unreachable.
      await waitFor(() => mailed('max@example.org', subject), 15_000, 50);
      expect(mailed('paula@example.org', subject)).toBe(false);
      await waitFor(async () => (await api('GET', `/messages/${sent.id}`)).data.message.counts.queued === 0, 15_000, 100);
      expect((await api('GET', `/messages/${sent.id}`)).data.message.counts).toMatchObject({ recipients: 2, sent: 1, unreachable: 1 });
      expect(await requestsDuring(leader, () => page.getByRole('button', { name: words.refresh, exact: true }).click())).toEqual([`GET /api/messages/${sent.id}`]);
      await expect.poll(() => countShown(page, words.mailUnreachable)).toBe(formatNumber(1, language));
      expect(await countShown(page, words.mailQueued)).toBe(formatNumber(0, language));
      expect(leader.found).toEqual([]);
      await leader.close();
    }
  }, 240_000);
});
