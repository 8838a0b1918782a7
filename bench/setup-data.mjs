// Fills a fresh data directory for the benchmark through the built service's own modules:
// tenant "bench" with one user (unless benchTenant is false), and N tenants x M users, each
// with a login token. Users share one precomputed password hash, so setting up 20,000 of them
// takes seconds, not hours.
import { loadConfig } from '../dist/config.js';
import { openStorage } from '../dist/server/first-start.js';
import { createTenant } from '../dist/modules/tenants/rules.js';
import { hashPassword } from '../dist/modules/auth/passwords.js';
import { issueToken } from '../dist/modules/tokens/rules.js';
import { toDbTimestamp } from '../dist/lib/time.js';

export const PASSWORD = 'bench password 123';

export async function setupData(env, { tenants, usersPerTenant, benchTenant = true }) {
  const config = loadConfig(env);
  const storage = await openStorage(config);
  const hash = await hashPassword(PASSWORD);
  const now = toDbTimestamp(new Date());
  const addUsers = async (slug, count) => {
    const db = storage.tenantDb(slug);
    const tokens = [];
    for (let i = 1; i <= count; i++) {
      const user = await db
        .insertInto('users')
        .values({
          username: `user${i}`, email: `user${i}@example.com`, firstname: 'Bench', lastname: `User ${i}`,
          gender_id: 1, type_id: null, phonenumber: null, phonenumber_mobile: null, street: 'Main Street',
          housenumber: '1', zip: '01234', city: 'Bonn', is_vegetarian: 0, can_swimm: 1,
          password: hash, is_active: 1, created_at: now, updated_at: now,
        })
        .returning('id')
        .executeTakeFirstOrThrow();
      tokens.push((await issueToken(db, user.id, { tokenPrefix: '' })).plainTextToken);
    }
    return tokens;
  };
  let benchToken;
  if (benchTenant) {
    await createTenant(storage, 'bench');
    [benchToken] = await addUsers('bench', 1);
  }
  const spread = [];
  for (let t = 1; t <= tenants; t++) {
    const slug = `club-${t}`;
    await createTenant(storage, slug);
    for (const token of await addUsers(slug, usersPerTenant)) spread.push({ host: `${slug}.localhost`, token });
  }
  await storage.close();
  return { benchToken, spread };
}
