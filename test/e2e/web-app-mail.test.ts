import { mkdirSync } from 'node:fs';
import { createServer, type AddressInfo } from 'node:net';
import { fileURLToPath } from 'node:url';
import type { Browser, Page, Request } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { translateApiMessage } from '../../web/src/i18n/api-messages.js';
import { formatNumber, type Language } from '../../web/src/i18n/index.js';
import { browserAvailable, launchChromium, ofThisPass } from '../helpers/browser.js';
import { startSmtpSink, type ReceivedMail, type SmtpSink } from '../helpers/smtp-sink.js';
import { waitFor } from '../helpers/wait.js';
import { startWebServer, type WebServer } from '../helpers/web-server.js';
import { check, messageBeside, named, nextQuestion, openSignedOut, serverLogOnFailure, signIn as signInAs, view, visit, type Journey } from '../helpers/web-journey.js';

const ZONE = 'Europe/Zurich';
const PASSWORD = 'a password for the camp';
// The guide's pictures of mails (docs/guide/mail-*.png) are copied from here by hand when the mails change.
const GUIDE = fileURLToPath(new URL('../../test-artifacts/', import.meta.url));

/** A port no one listens on now: the server gets it, so that the links in its mails lead back to it. */
async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  return port;
}

/** The link of a mail (its text part) to the app with a reset or invitation fragment. */
function linkIn(mail: ReceivedMail, kind: 'reset' | 'invitation'): string {
  const link = new RegExp(`https?://\\S+/#${kind}=[A-Za-z0-9_-]{43}`).exec(mail.parsed.text ?? '')?.[0];
  if (!link) throw new Error(`no ${kind} link in: ${mail.parsed.text}`);
  return link;
}

/**
 * The pages about mail in Debian's Chromium against the built server, which sends through a real
 * SMTP server on 127.0.0.1 (the test's sink): forgot the password -> the link in the mail -> a new
 * password -> signed in; invite a person -> the link -> "Are you ...?" -> a login -> signed in;
 * write to a group and to an event's participants -> the families receive it -> the message page
 * shows each recipient's state; a failing address on a person's page, marked as working again.
 * In German, English and French, at 1280 and 360 px; no English text in German or French pages,
 * no sideways scrolling, clean for axe-core, within the request budget; outcomes read back
 * through the API.
 */
describe.runIf(browserAvailable)('the web app: mail', () => {
  let web: WebServer;
  let sink: SmtpSink;
  let browser: Browser;
  let credentials: { username: string; password: string };
  const ids = {} as Record<'root' | 'troop' | 'lea' | 'max' | 'mia' | 'paula' | 'event', number>;
  const api = (method: string, path: string, body?: object) => web.apiOk(method, path, body);

  beforeAll(async () => {
    sink = await startSmtpSink();
    const port = await freePort();
    web = await startWebServer('mail', {
      PORT: String(port),
      PUBLIC_URL: `http://127.0.0.1:${port}`,
      SMTP_URL: sink.url,
      MESSAGES_PER_HOUR: '3',
      RATE_LIMIT_AUTHENTICATED: '100000',
      RATE_LIMIT_UNAUTHENTICATED: '1000',
      TZ: ZONE,
    });
    credentials = JSON.parse(/-d '(\{.*\})'/.exec(web.server.output())![1]!) as typeof credentials;
    ids.root = (await api('GET', '/groups?limit=1')).data.groups[0].id;
    ids.troop = (await api('POST', '/groups', { parent_id: ids.root, name: 'Falken' })).data.group.id;
    const person = async (fields: object) => (await api('POST', '/people', fields)).data.person.id as number;
    ids.lea = await person({ firstname: 'Lea', lastname: 'Lindt', email: 'lea@example.org', username: 'lea', password: PASSWORD, membership: { group_id: ids.troop, role_type: 'leader' } });
    ids.max = await person({ firstname: 'Max', lastname: 'Meier', email: 'max@example.org', birthday: '1990-05-01', membership: { group_id: ids.troop, role_type: 'member' } });
    ids.mia = await person({ firstname: 'Mia', lastname: 'Muster', birthday: '2015-03-04', membership: { group_id: ids.troop, role_type: 'member' } });
    ids.paula = await person({ firstname: 'Paula', lastname: 'Muster', email: 'paula@example.org', guardian_of: ids.mia });
    const starts = new Date(Date.now() + 30 * 86_400_000);
    ids.event = (
      await api('POST', '/events', {
        group_id: ids.troop,
        name: 'Sommerlager',
        starts_at: starts.toISOString(),
        ends_at: new Date(starts.getTime() + 5 * 86_400_000).toISOString(),
      })
    ).data.event.id;
    await api('POST', `/events/${ids.event}/participations`, { person_ids: [ids.max, ids.mia] });
    browser = await launchChromium();
  }, 90_000);
  afterAll(async () => {
    await browser?.close();
    await web?.stop();
    await sink?.close();
  });

  /** A browser that is not signed in, at `url` (a mail's link, or the login page). */
  const signedOut = (url: string, language: Language, width: number, name: string) => openSignedOut(url, { browser, language, width, timeZone: ZONE, name: `mail-${name}` });

  /** The token of a link appears in no request the page made (address or referrer), and no longer in the address bar. */
  async function expectTokenGone(journey: Journey & { everyRequest: Request[] }, link: string) {
    const token = link.split('=').pop()!;
    await expect.poll(() => journey.page.evaluate(() => location.href)).not.toContain(token);
    for (const request of journey.everyRequest) {
      expect(request.url()).not.toContain(token);
      expect((await request.allHeaders()).referer ?? '').not.toContain(token);
    }
  }

  const mailTo = async (address: string, count: number) => {
    await waitFor(() => sink.to(address).length >= count, 15_000, 50);
    return sink.to(address)[count - 1]!;
  };

  const signInWithPassword = async (username: string, password: string) =>
    (await fetch(`${web.base}/api/login`, { method: 'POST', headers: { 'content-type': 'application/json', accept: 'application/json' }, body: JSON.stringify({ username, password }) })).status;

  it('serves the app with Referrer-Policy: same-origin', async () => {
    const page = await fetch(`${web.base}/`);
    expect(page.status).toBe(200);
    expect(page.headers.get('referrer-policy')).toBe('same-origin');
  });

  it('answers a reset with the token alone on `token` alone when the link is dead, else on the password, leaving the link usable', async () => {
    const reset = async (body: object) => {
      const response = await fetch(`${web.base}/api/password/reset`, { method: 'POST', headers: { 'content-type': 'application/json', accept: 'application/json' }, body: JSON.stringify(body) });
      return { status: response.status, errors: ((await response.json()) as { errors?: Record<string, string[]> }).errors };
    };
    const email = 'probe@example.org';
    await api('POST', '/people', { firstname: 'Pia', lastname: 'Probe', email, username: 'pia', password: PASSWORD, membership: { group_id: ids.troop, role_type: 'member' } });
    await fetch(`${web.base}/api/password/forgot`, { method: 'POST', headers: { 'content-type': 'application/json', accept: 'application/json' }, body: JSON.stringify({ email }) });
    const token = linkIn(await mailTo(email, 1), 'reset').split('=').pop()!;
    for (let probe = 0; probe < 2; probe++) {
      const live = await reset({ token });
      expect(live.status).toBe(422);
      expect(Object.keys(live.errors ?? {})).toContain('password');
      expect(live.errors).not.toHaveProperty('token');
    }
    expect((await reset({ token, password: 'the probe password', password_confirmation: 'the probe password' })).status).toBe(200);
    for (const dead of [token, 'x'.repeat(43)]) {
      expect(await reset({ token: dead })).toEqual({ status: 422, errors: { token: ['The reset link is invalid or has expired.'] } });
    }
  }, 60_000);

  it('leads from "forgot your password?" through the mailed link to a new password, signed in', async () => {
    serverLogOnFailure(web);
    const cases = [
      { language: 'de', width: 360 },
      { language: 'fr', width: 1280 },
      { language: 'en', width: 1280 },
    ] as const;
    for (const { language, width } of ofThisPass(cases)) {
      const username = `rosa-${language}`;
      const email = `rosa.${language}@example.org`;
      await api('POST', '/people', { firstname: 'Rosa', lastname: 'Rot', email, username, password: PASSWORD, membership: { group_id: ids.troop, role_type: 'member' } });
      const visitor = await signedOut(`${web.base}/`, language, width, 'forgot');
      const { page, words } = visitor;
      await page.getByRole('link', { name: words.forgotPassword, exact: true }).click();
      await page.getByRole('heading', { level: 1, name: words.forgotTitle }).waitFor();
      await check(visitor, 'forgot password');
      await page.getByLabel(words.email, { exact: true }).fill(email);
      await page.getByRole('button', { name: words.sendLink, exact: true }).click();
      await page.getByRole('status').filter({ hasText: translateApiMessage('If the address is known, a link is on its way.', language) }).waitFor();
      await check(visitor, 'forgot password, answered');
      await visitor.close();

      // The mail's link, followed in a new browser: the fragment goes before any request.
      const link = linkIn(await mailTo(email, 1), 'reset');
      const reader = await signedOut(link, language, width, 'reset');
      await reader.page.getByLabel(reader.words.newPassword, { exact: true }).waitFor();
      await expectTokenGone(reader, link);
      // The link was checked before the form showed: the reset with the token alone, which leaves it unused.
      expect(named(reader.requests)).toEqual(['POST /api/password/reset']);
      await check(reader, 'set a new password');
      await reader.page.getByLabel(reader.words.newPassword, { exact: true }).fill('a new password for the camp');
      await reader.page.getByLabel(reader.words.repeatPassword, { exact: true }).fill('not the same password');
      await reader.page.getByRole('button', { name: reader.words.setNewPassword, exact: true }).click();
      // The mismatch is said under the repetition, where it was typed, not under the first password.
      const mismatch = translateApiMessage('The password field confirmation does not match.', language);
      await expect.poll(() => messageBeside(reader.page, reader.words.repeatPassword)).toContain(mismatch);
      expect(await messageBeside(reader.page, reader.words.newPassword)).not.toContain(mismatch);
      await check(reader, 'set a new password, refused');
      await reader.page.getByLabel(reader.words.repeatPassword, { exact: true }).fill('a new password for the camp');
      await reader.page.getByRole('button', { name: reader.words.setNewPassword, exact: true }).click();
      await reader.page.getByRole('heading', { name: reader.words.nextForUs }).waitFor();
      await reader.page.getByRole('status').filter({ hasText: reader.words.passwordSet }).waitFor();
      await check(reader, 'password set');
      expect(await signInWithPassword(username, 'a new password for the camp')).toBe(200);
      expect(await signInWithPassword(username, PASSWORD)).toBe(401);
      expect(reader.found).toEqual([]);
      await reader.close();

      // Used once: the link says so at once, with no form to fill in, and offers a new one.
      const again = await signedOut(link, language, width, 'reset-used');
      await again.page.getByRole('alert').filter({ hasText: translateApiMessage('The reset link is invalid or has expired.', language) }).waitFor();
      await again.page.getByRole('heading', { level: 1, name: again.words.resetTitle }).waitFor();
      expect(await again.page.getByLabel(again.words.newPassword, { exact: true }).count()).toBe(0);
      expect(await again.page.getByRole('button', { name: again.words.setNewPassword, exact: true }).count()).toBe(0);
      await expectTokenGone(again, link);
      await check(again, 'set a new password, link used');
      await again.page.getByRole('button', { name: again.words.requestNewLink, exact: true }).click();
      await again.page.getByRole('heading', { level: 1, name: again.words.forgotTitle }).waitFor();
      expect(visitor.found.concat(again.found)).toEqual([]);
      await again.close();

      // Opened in a tab where someone is signed in, checking the dead link ends no session.
      const leader = await signInAs({ web, browser, username: 'lea', password: PASSWORD, language, width, timeZone: ZONE, name: 'reset-signed-in' });
      await leader.page.goto(link);
      await leader.page.getByRole('alert').filter({ hasText: translateApiMessage('The reset link is invalid or has expired.', language) }).waitFor();
      expect(await leader.page.evaluate(async () => (await fetch('/api/user', { headers: { accept: 'application/json' } })).status)).toBe(200);
      // And in a new tab of that browser, which has not looked for its session yet: the way on leads into the app.
      const tab = await leader.page.context().newPage();
      await tab.goto(link);
      await tab.getByRole('alert').filter({ hasText: translateApiMessage('The reset link is invalid or has expired.', language) }).waitFor();
      await tab.getByRole('button', { name: leader.words.toStartPage, exact: true }).click();
      await tab.getByRole('heading', { name: leader.words.nextForUs }).waitFor();
      await leader.close();
    }
  }, 240_000);

  it('invites a person from their page; the link asks "Are you ...?", then makes a login and signs in', async () => {
    serverLogOnFailure(web);
    const cases = [
      { language: 'fr', width: 360 },
      { language: 'de', width: 1280 },
    ] as const;
    for (const { language, width } of cases) {
      const email = `nina.${language}@example.org`;
      const nina = (await api('POST', '/people', { firstname: 'Nina', lastname: `Neu ${language}`, email, membership: { group_id: ids.troop, role_type: 'member' } })).data.person.id as number;
      const leader = await signInAs({ web, browser, username: 'lea', password: PASSWORD, language, width, timeZone: ZONE, name: 'mail-invite' });
      const { page, words } = leader;
      // The person's page and, as they have an address, its mail status: two reads.
      expect(await visit(leader, `/people/${nina}`, `Nina Neu ${language}`)).toEqual([`GET /api/people/${nina}`, `GET /api/people/${nina}/email-status`].sort());
      await check(leader, 'a person without login');
      const asked = nextQuestion(page, true);
      await page.getByRole('button', { name: words.inviteByEmail, exact: true }).click();
      // The API cannot say whether an earlier invitation is open: the question says what happens to its link.
      await expect(asked).resolves.toBe(`${words.confirmInvite(`Nina Neu ${language}`, email)} ${words.earlierInvitationStops}`);
      await page.getByRole('status').filter({ hasText: email }).waitFor();
      await check(leader, 'a person invited');
      expect(leader.found).toEqual([]);
      await leader.close();

      const mail = await mailTo(email, 1);
      if (language === 'fr') {
        await screenshotMail(mail, 'mail-invitation.png');
      }
      const link = linkIn(mail, 'invitation');
      // A dead link first, then the mailed one in the same tab: the second is read afresh.
      const invited = await signedOut(`${web.base}/#invitation=${'x'.repeat(43)}`, language, width, 'invitation');
      const other = invited.words;
      await invited.page.getByRole('alert').filter({ hasText: translateApiMessage('The invitation is invalid or has expired.', language) }).waitFor();
      await invited.page.goto(link);
      await invited.page.getByText(other.areYou(`Nina Neu ${language}`)).waitFor();
      await expectTokenGone(invited, link);
      expect(await invited.page.getByText(other.invitedBy('Lea Lindt', (await api('GET', '/tenant')).data.tenant.name)).count()).toBe(1);
      await check(invited, 'are you');
      await invited.page.getByRole('button', { name: other.noNotMe, exact: true }).click();
      await invited.page.getByText(other.notMeExplained).waitFor();
      await check(invited, 'not me');
      await invited.page.getByRole('button', { name: other.yesThatIsMe, exact: true }).click();
      // A username taken already: the API's message beside the field.
      await invited.page.getByLabel(other.username, { exact: true }).fill('lea');
      await invited.page.getByLabel(other.password, { exact: true }).fill('nina password 1234');
      await invited.page.getByLabel(other.repeatPassword, { exact: true }).fill('nina password 123');
      await invited.page.getByRole('button', { name: other.createMyLogin, exact: true }).click();
      // A repetition that differs: said under the repetition, not under the first password.
      const mismatch = translateApiMessage('The password field confirmation does not match.', language);
      await expect.poll(() => messageBeside(invited.page, other.repeatPassword)).toContain(mismatch);
      expect(await messageBeside(invited.page, other.password)).toBeNull();
      await invited.page.getByLabel(other.repeatPassword, { exact: true }).fill('nina password 1234');
      await invited.page.getByRole('button', { name: other.createMyLogin, exact: true }).click();
      await expect.poll(() => messageBeside(invited.page, other.username)).toContain(translateApiMessage('The username has already been taken.', language));
      await check(invited, 'choose a login, refused');
      await invited.page.getByLabel(other.username, { exact: true }).fill(`nina-${language}`);
      await invited.page.getByRole('button', { name: other.createMyLogin, exact: true }).click();
      await invited.page.getByRole('heading', { name: other.nextForUs }).waitFor();
      await invited.page.getByRole('status').filter({ hasText: other.loginCreated }).waitFor();
      expect((await api('GET', `/people/${nina}`)).data.person.has_login).toBe(true);
      expect(await signInWithPassword(`nina-${language}`, 'nina password 1234')).toBe(200);
      expect(invited.found).toEqual([]);
      await invited.close();
    }
  }, 240_000);

  it('says why an invitation link is refused, and removes it from the address too', async () => {
    serverLogOnFailure(web);
    const link = `${web.base}/#invitation=${'x'.repeat(43)}`;
    const visitor = await signedOut(link, 'en', 360, 'invitation-refused');
    await visitor.page.getByRole('alert').filter({ hasText: 'The invitation is invalid or has expired.' }).waitFor();
    await expectTokenGone(visitor, link);
    expect(named(visitor.requests)).toEqual(['POST /api/invitation/check']);
    await check(visitor, 'invitation refused');
    await visitor.page.getByRole('link', { name: visitor.words.backToLogin, exact: true }).click();
    await visitor.page.getByRole('button', { name: visitor.words.login, exact: true }).waitFor();
    // A second link opened in the same tab, where the app already runs: read and removed the same way.
    const second = `${web.base}/#invitation=${'y'.repeat(43)}`;
    await visitor.page.evaluate((hash) => {
      location.hash = hash;
    }, new URL(second).hash);
    await visitor.page.getByRole('alert').filter({ hasText: 'The invitation is invalid or has expired.' }).waitFor();
    await expectTokenGone(visitor, second);
    expect(visitor.found).toEqual([]);
    await visitor.close();
  }, 60_000);

  it('adds a person with "invite by e-mail" instead of a password, and the invitation arrives', async () => {
    serverLogOnFailure(web);
    const leader = await signInAs({ web, browser, username: 'lea', password: PASSWORD, language: 'en', width: 1280, timeZone: ZONE, name: 'mail-new-person' });
    const { page, words } = leader;
    await visit(leader, `/groups/${ids.troop}/people/new`, words.addPersonTo('Falken'));
    const form = page.getByRole('form', { name: words.addPersonTo('Falken') });
    await form.getByLabel(words.firstname, { exact: true }).fill('Olga');
    await form.getByLabel(words.lastname, { exact: true }).fill('Ost');
    await form.getByLabel(words.inviteByEmail, { exact: true }).check();
    await form.getByText(words.inviteNeedsEmail).waitFor();
    // No address, no invitation: said beside the field before anything is written.
    await form.getByRole('button', { name: words.addPerson, exact: true }).click();
    await expect.poll(() => messageBeside(form, words.email)).toContain('The email field is required.');
    await form.getByLabel(words.email, { exact: true }).fill('olga@example.org');
    await form.getByRole('button', { name: words.addPerson, exact: true }).click();
    await page.getByRole('status').filter({ hasText: words.addedAndInvited('Olga Ost', 'olga@example.org') }).waitFor();
    const olga = (await api('GET', '/people?q=olga@example.org')).data.people[0];
    expect(olga.has_login).toBe(false);
    expect(linkIn(await mailTo('olga@example.org', 1), 'invitation')).toMatch(/#invitation=/);
    await check(leader, 'new person invited');
    expect(leader.found).toEqual([]);
    await leader.close();
  }, 120_000);

  it('writes to the group and to an event\'s participants; the families receive it, the message page shows each state', async () => {
    serverLogOnFailure(web);
    const cases = [
      { language: 'de', width: 360, target: 'group' },
      { language: 'en', width: 1280, target: 'event' },
      { language: 'fr', width: 1280, target: 'group' },
    ] as const;
    for (const [index, { language, width, target }] of cases.entries()) {
      const leader = await signInAs({ web, browser, username: 'lea', password: PASSWORD, language, width, timeZone: ZONE, name: `mail-write-${target}` });
      const { page, words } = leader;
      const subject = `Abfahrt ${index + 1}`;
      const body = `Der Bus fährt um 8 Uhr.\n\nMehr: https://example.org/lager`;
      if (target === 'group') {
        await visit(leader, `/groups/${ids.troop}`, 'Falken');
        expect(await (async () => {
          const before = leader.requests.length;
          await page.getByRole('link', { name: words.writeToGroup, exact: true }).click();
          await page.getByRole('heading', { level: 1, name: words.writeToGroup }).waitFor();
          await leader.settled();
          return leader.requests.slice(before).filter((request) => request.method() === 'GET').length;
        })()).toBe(0);
        // Nothing surprising chosen: no subgroups, every role, guardians included.
        await expect(page.getByLabel(words.includeSubgroups, { exact: true }).isChecked()).resolves.toBe(false);
        await expect(page.getByLabel(words.guardiansInclude, { exact: true }).isChecked()).resolves.toBe(true);
      } else {
        await visit(leader, `/events/${ids.event}`, 'Sommerlager');
        await page.getByRole('link', { name: words.writeToParticipants, exact: true }).click();
        await page.getByRole('heading', { level: 1, name: words.writeToParticipants }).waitFor();
        await expect(page.getByLabel(words.accepted, { exact: true }).isChecked()).resolves.toBe(true);
        await expect(page.getByLabel(words.pending, { exact: true }).isChecked()).resolves.toBe(false);
        await expect(page.getByLabel(words.guardiansIncludeParticipants, { exact: true }).isChecked()).resolves.toBe(true);
      }
      await check(leader, `write to the ${target}`);
      await page.getByLabel(words.subject, { exact: true }).fill(subject);
      await page.getByLabel(words.messageText, { exact: true }).fill(body);
      await page.getByText(words.charactersUsed(formatNumber(body.length, language), formatNumber(20_000, language))).waitFor();
      const asked = nextQuestion(page, true);
      await page.getByRole('button', { name: words.sendMessage, exact: true }).click();
      await asked;
      // Sent: the app lands on the message's own page, where the confirmation is announced.
      await page.getByRole('status').filter({ hasText: words.messageSent }).waitFor();
      await page.getByRole('heading', { level: 1, name: subject, exact: true }).waitFor();
      const sent = (await api('GET', target === 'group' ? `/messages?group_id=${ids.troop}` : `/messages?event_id=${ids.event}`)).data.messages[0];
      expect(await page.evaluate(() => location.hash)).toBe(`#/messages/${sent.id}`);
      await check(leader, `written to the ${target}`);

      // The families receive it: the adult member, and the child's guardian (the child has no address).
      expect(sent).toMatchObject({ subject, body });
      for (const address of ['max@example.org', 'paula@example.org']) await waitFor(() => sink.to(address).some((mail) => mail.parsed.subject === subject), 15_000, 50);
      if (index === 0) await screenshotMail(sink.to('paula@example.org').find((mail) => mail.parsed.subject === subject)!, 'mail-message.png');
      await waitFor(async () => (await api('GET', `/messages/${sent.id}`)).data.message.counts.queued === 0, 15_000, 100);

      // The list of sent messages: of the group (or event), and the reader's own from the bar.
      await visit(leader, target === 'group' ? `/groups/${ids.troop}/messages` : `/events/${ids.event}/messages`, words.sentMessages);
      await check(leader, 'sent messages');

      // The message page, opened from the list: the message (and an event's name), each recipient with their state in the reader's words.
      const reads = [`GET /api/messages/${sent.id}`, ...(target === 'event' ? [`GET /api/events/${ids.event}`] : [])].sort();
      expect(await view(leader, () => page.getByRole('link', { name: subject, exact: true }).click(), subject)).toEqual(reads);
      const message = (await api('GET', `/messages/${sent.id}`)).data.message;
      const rows = page.getByRole('region', { name: words.recipients }).getByRole('row');
      await expect(rows.count()).resolves.toBe(message.recipients.length + 1);
      for (const recipient of message.recipients) {
        const row = rows.filter({ hasText: recipient.name }).filter({ hasText: recipient.email ?? '' });
        await expect(row.innerText()).resolves.toContain(words[({ queued: 'mailQueued', sent: 'mailSent', failed: 'mailFailed', unreachable: 'mailUnreachable' } as const)[recipient.state as 'sent']]);
      }
      await page.getByRole('link', { name: 'https://example.org/lager', exact: true }).waitFor();
      await check(leader, 'a sent message');
      await leader.page.getByRole('navigation').getByRole('link', { name: words.myMessages, exact: true }).click();
      await page.getByRole('heading', { level: 1, name: words.myMessages }).waitFor();
      await page.getByRole('link', { name: subject, exact: true }).waitFor();
      expect(leader.found).toEqual([]);
      await leader.close();
    }

    // The sender's hourly limit (3 here): the API's words and when to try again; the text stays.
    const leader = await signInAs({ web, browser, username: 'lea', password: PASSWORD, language: 'de', width: 1280, timeZone: ZONE, name: 'mail-limit' });
    const { page, words } = leader;
    await visit(leader, `/groups/${ids.troop}/messages/new`, words.writeToGroup);
    await page.getByLabel(words.subject, { exact: true }).fill('Noch eine');
    // A text longer than the API takes is kept whole and refused beside the field, before any question.
    const long = 'x'.repeat(20_001);
    await page.getByLabel(words.messageText, { exact: true }).fill(long);
    await page.getByRole('button', { name: words.sendMessage, exact: true }).click();
    await page.getByText(translateApiMessage('The body field must not be greater than 20000 characters.', 'de'), { exact: true }).waitFor();
    await expect(page.getByLabel(words.messageText, { exact: true }).inputValue()).resolves.toBe(long);
    await page.getByLabel(words.messageText, { exact: true }).fill('Zu viel');
    const asked = nextQuestion(page, true);
    await page.getByRole('button', { name: words.sendMessage, exact: true }).click();
    await asked;
    await page.getByRole('alert').filter({ hasText: translateApiMessage('Too Many Attempts.', 'de') }).waitFor();
    await expect(page.getByLabel(words.messageText, { exact: true }).inputValue()).resolves.toBe('Zu viel');
    await check(leader, 'too many messages');
    expect(leader.found).toEqual([]);
    await leader.close();
  }, 300_000);

  it('warns on a person\'s page when mail to their address fails, and marks it as working again', async () => {
    serverLogOnFailure(web);
    const email = 'gone@example.org';
    const gone = (await api('POST', '/people', { firstname: 'Gina', lastname: 'Gone', email, membership: { group_id: ids.troop, role_type: 'member' } })).data.person.id as number;
    sink.answers.set(email, { code: 550, message: '5.1.1 No such user' });
    for (let refusal = 1; refusal <= 3; refusal++) {
      await api('POST', `/people/${gone}/invitation`);
      await waitFor(async () => (await api('GET', `/people/${gone}/email-status`)).data.email_status.refusals >= refusal, 15_000, 100);
    }
    expect((await api('GET', `/people/${gone}/email-status`)).data.email_status.state).toBe('failing');
    for (const { language, width } of [{ language: 'fr', width: 360 }, { language: 'en', width: 1280 }] as const) {
      if ((await api('GET', `/people/${gone}/email-status`)).data.email_status.state !== 'failing') {
        for (let refusal = 1; refusal <= 3; refusal++) {
          await api('POST', `/people/${gone}/invitation`);
          await waitFor(async () => (await api('GET', `/people/${gone}/email-status`)).data.email_status.refusals >= refusal, 15_000, 100);
        }
      }
      const admin = await signInAs({ web, browser, ...credentials, language, width, timeZone: ZONE, name: 'mail-failing' });
      const { page, words } = admin;
      await visit(admin, `/people/${gone}`, 'Gina Gone');
      const warning = page.getByRole('region', { name: words.mailFailingTitle });
      await warning.getByText('5.1.1 No such user', { exact: false }).waitFor();
      await check(admin, 'a failing address');
      // An invitation to it is refused, with the API's reason in the reader's language.
      const invite = nextQuestion(page, true);
      await page.getByRole('button', { name: words.inviteByEmail, exact: true }).click();
      await invite;
      await page.getByRole('alert').filter({ hasText: translateApiMessage('The e-mail address was refused before.', language) }).waitFor();
      const asked = nextQuestion(page, true);
      await warning.getByRole('button', { name: words.markMailWorking, exact: true }).click();
      await expect(asked).resolves.toBe(words.confirmMarkMailWorking(email));
      await page.getByRole('status').filter({ hasText: words.mailMarkedWorking }).waitFor();
      await expect.poll(() => warning.count()).toBe(0);
      expect((await api('GET', `/people/${gone}/email-status`)).data.email_status.state).toBe('ok');
      await check(admin, 'an address working again');
      expect(admin.found).toEqual([]);
      await admin.close();
    }
  }, 240_000);

  /** A received mail's HTML part as Chromium shows it (the guide shows it too). */
  async function screenshotMail(mail: ReceivedMail, file: string) {
    // As tall as the mail: the screenshot of the full page ends where the mail does.
    const context = await browser.newContext({ viewport: { width: 720, height: 120 } });
    const page: Page = await context.newPage();
    await page.setContent(typeof mail.parsed.html === 'string' ? mail.parsed.html : '<p>no HTML part</p>');
    mkdirSync(GUIDE, { recursive: true });
    await page.screenshot({ path: `${GUIDE}${file}`, fullPage: true });
    await context.close();
  }
});
