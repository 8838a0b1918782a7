import type { FastifyInstance } from 'fastify';
import pino from 'pino';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { buildApp } from '../../../src/app.js';
import { createStorage } from '../../../src/db/index.js';
import type { Storage } from '../../../src/db/storage.js';
import { dayIn } from '../../../src/modules/permissions/calendar.js';
import { setTenantTimezone } from '../../../src/modules/tenants/rules.js';
import { hostOf, JSON_HEADERS } from '../../helpers/app.js';
import { sleep } from '../../helpers/wait.js';
import { buildImportWorld, type ImportWorld } from '../people-import/helpers.js';

/** At any moment the dates in these two zones differ (UTC+14 and UTC-11). */
const AHEAD = 'Pacific/Kiritimati';
const BEHIND = 'Pacific/Pago_Pago';

describe('PATCH /api/tenant (the tenant settings)', () => {
  let w: ImportWorld;
  beforeEach(async () => {
    w = await buildImportWorld();
  });
  afterEach(() => w.t.close());

  const patch = (who: 'admin' | 'leader', payload: object, query = '') => w.call(who, 'PATCH', `/tenant${query}`, payload);
  const tenantNow = async () => (await w.call('leader', 'GET', '/tenant')).json().data.tenant;

  it('changes the name, keeping the root group\'s, and answers the whole tenant', async () => {
    const answer = await patch('admin', { name: 'Pfadi Olten' });
    expect(answer.statusCode).toBe(200);
    expect(answer.json()).toEqual({ success: true, message: 'success', data: { tenant: { slug: 'demo', name: 'Pfadi Olten', timezone: 'UTC', locale: 'en' } } });
    expect(await tenantNow()).toEqual({ slug: 'demo', name: 'Pfadi Olten', timezone: 'UTC', locale: 'en' });
    expect((await w.call('admin', 'GET', `/groups/${w.root}`)).json().data.group.name).toBe('demo');
  });

  it('changes the language to de, en or fr', async () => {
    for (const locale of ['de', 'fr', 'en']) {
      const answer = await patch('admin', { locale });
      expect(answer.statusCode).toBe(200);
      expect(answer.json().data.tenant.locale).toBe(locale);
      expect((await tenantNow()).locale).toBe(locale);
    }
    const access = (await w.call('leader', 'GET', '/user/access')).json().data.tenant;
    expect(access).toEqual({ slug: 'demo', name: 'demo', timezone: 'UTC', locale: 'en' });
  });

  it('changes the time zone by its canonical name; events keep their moment and "today" moves at once', async () => {
    const event = (await w.call('admin', 'POST', '/events', { group_id: w.troop, name: 'Camp', starts_at: '2031-07-01T08:00:00Z', ends_at: '2031-07-08T16:00:00Z' })).json().data.event;
    // A membership that starts today in the zone ahead: it is active there, not yet in the zone behind.
    await w.t.grant('demo', w.ids.leader, w.other, 'member', { startOn: dayIn(AHEAD, new Date()) });
    const memberOfOther = async () =>
      (await w.call('leader', 'GET', '/user/access')).json().data.memberships.some((membership: { group_id: number }) => membership.group_id === w.other);

    const ahead = await patch('admin', { timezone: AHEAD.toLowerCase() });
    expect(ahead.statusCode).toBe(200);
    expect(ahead.json().data.tenant).toEqual({ slug: 'demo', name: 'demo', timezone: AHEAD, locale: 'en' });
    expect(await memberOfOther()).toBe(true);
    expect((await w.call('leader', 'GET', '/user/access')).json().data.tenant.timezone).toBe(AHEAD);

    expect((await patch('admin', { timezone: BEHIND })).statusCode).toBe(200);
    expect(await memberOfOther()).toBe(false);

    const after = (await w.call('admin', 'GET', `/events/${event.id}`)).json().data.event;
    expect([after.starts_at, after.ends_at]).toEqual([event.starts_at, event.ends_at]);
    expect(after.starts_at).toBe('2031-07-01T08:00:00.000000Z');
  });

  it('changes every field at once, and nothing without a field', async () => {
    const all = await patch('admin', { name: 'Scouts', timezone: 'Europe/Zurich', locale: 'fr' });
    expect(all.json().data.tenant).toEqual({ slug: 'demo', name: 'Scouts', timezone: 'Europe/Zurich', locale: 'fr' });
    const none = await patch('admin', {});
    expect(none.statusCode).toBe(200);
    expect(none.json().data.tenant).toEqual({ slug: 'demo', name: 'Scouts', timezone: 'Europe/Zurich', locale: 'fr' });
  });

  it('refuses a zone that is not an IANA name, a language it does not write and a bad name, changing nothing', async () => {
    const refusals: [object, Record<string, string[]>][] = [
      [{ timezone: 'Mars/Olympus' }, { timezone: ['The timezone field must be a valid timezone.'] }],
      [{ timezone: '+01:00' }, { timezone: ['The timezone field must be a valid timezone.'] }],
      [{ timezone: 7 }, { timezone: ['The timezone field must be a string.'] }],
      [{ locale: 'it' }, { locale: ['The selected locale is invalid.'] }],
      [{ locale: 'DE' }, { locale: ['The selected locale is invalid.'] }],
      [{ name: '' }, { name: ['The name field is required.'] }],
      [{ name: 'x'.repeat(256) }, { name: ['The name field must not be greater than 255 characters.'] }],
      [{ name: 'Renamed', timezone: 'Nowhere/Else' }, { timezone: ['The timezone field must be a valid timezone.'] }],
    ];
    for (const [payload, errors] of refusals) {
      const answer = await patch('admin', payload);
      expect(answer.statusCode, JSON.stringify(payload)).toBe(422);
      expect(answer.json().errors, JSON.stringify(payload)).toEqual(errors);
    }
    expect(await tenantNow()).toEqual({ slug: 'demo', name: 'demo', timezone: 'UTC', locale: 'en' });
    const unknownQuery = await patch('admin', { name: 'Renamed' }, '?dry_run=true');
    expect(unknownQuery.statusCode).toBe(422);
    expect(unknownQuery.json().errors).toEqual({ dry_run: ['The dry run field is prohibited.'] });
    expect((await tenantNow()).name).toBe('demo');
  });

  it('needs admin on the root and a token with tenant:write', async () => {
    const leader = await patch('leader', { name: 'Mine' });
    expect(leader.statusCode).toBe(403);
    expect(leader.json()).toEqual({ success: false, message: 'This action is unauthorized.' });
    // The refusal comes before the body is read: a leader hears 403 whatever they send.
    expect((await patch('leader', { locale: 'it' })).statusCode).toBe(403);
    const narrow = (await w.call('admin', 'POST', '/tokens', { name: 'reader', abilities: ['people:read'] })).json().data.plainTextToken as string;
    const refused = await w.t.app.inject({
      method: 'PATCH',
      url: '/api/tenant',
      headers: { ...JSON_HEADERS, host: hostOf('demo'), authorization: `Bearer ${narrow}` },
      payload: { name: 'Mine' },
    });
    expect(refused.statusCode).toBe(403);
    expect(refused.json()).toEqual({ success: false, message: 'Invalid ability provided.' });
    const granted = (await w.call('admin', 'POST', '/tokens', { name: 'settings', abilities: ['tenant:write'] })).json().data.plainTextToken as string;
    const allowed = await w.t.app.inject({
      method: 'PATCH',
      url: '/api/tenant',
      headers: { ...JSON_HEADERS, host: hostOf('demo'), authorization: `Bearer ${granted}` },
      payload: { name: 'Ours' },
    });
    expect(allowed.statusCode).toBe(200);
    expect(await tenantNow()).toMatchObject({ name: 'Ours' });
  });
});

describe('a new time zone on a second instance', () => {
  let w: ImportWorld;
  let storageB: Storage;
  let b: FastifyInstance;
  beforeEach(async () => {
    w = await buildImportWorld();
    // Behind first, before B starts: in UTC, "today" is Kiritimati's for ten hours of every day.
    await setTenantTimezone(w.t.storage, 'demo', BEHIND);
    storageB = await createStorage(w.t.config);
    b = await buildApp(w.t.config, { storage: storageB, logger: pino({ level: 'silent' }) });
    await b.ready();
  });
  afterEach(async () => {
    await b.close();
    await storageB.close();
    await w.t.close();
  });

  const accessOnB = async () =>
    (await b.inject({ method: 'GET', url: '/api/user/access', headers: { ...JSON_HEADERS, host: hostOf('demo'), authorization: `Bearer ${w.tokens.leader}` } })).json().data;

  it('moves "today" there within a second, through the feed of cache changes', async () => {
    await w.t.grant('demo', w.ids.leader, w.other, 'member', { startOn: dayIn(AHEAD, new Date()) });
    const memberOfOther = (access: { memberships: { group_id: number }[] }) => access.memberships.some((membership) => membership.group_id === w.other);
    // B reads the zone now, and would keep it for a second.
    expect(memberOfOther(await accessOnB())).toBe(false);
    expect((await w.call('admin', 'PATCH', '/tenant', { timezone: AHEAD })).statusCode).toBe(200);
    const started = performance.now();
    for (;;) {
      const access = await accessOnB();
      if (memberOfOther(access)) {
        expect(access.tenant.timezone).toBe(AHEAD);
        break;
      }
      expect(performance.now() - started, 'instance B did not see the new zone within a second').toBeLessThan(1000);
      await sleep(20);
    }
  });
});
