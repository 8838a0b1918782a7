import { hash as bcryptHash } from '@node-rs/bcrypt';
import { createHash, randomInt } from 'node:crypto';
import { crc32 } from 'node:zlib';
import { sql, type Kysely } from 'kysely';

/**
 * Builds the tables of the original service the way its Laravel migrations do (users with the
 * group fields, Sanctum's personal_access_tokens), in MySQL/MariaDB, PostgreSQL or SQLite, and
 * fills them the way Laravel and Sanctum would: $2y$ bcrypt hashes, sha256-hashed tokens with and
 * without the crc32b checksum, nullable timestamps.
 */
export type SourceDialect = 'mysql' | 'postgres' | 'sqlite';

const TYPES = {
  mysql: { id: 'bigint unsigned', bigint: 'bigint unsigned', flag: 'tinyint(1)', timestamp: 'timestamp' },
  postgres: { id: 'bigserial', bigint: 'bigint', flag: 'boolean', timestamp: 'timestamp(0)' },
  sqlite: { id: 'integer', bigint: 'integer', flag: 'tinyint(1)', timestamp: 'datetime' },
} as const;

const ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';
const strRandom40 = () => Array.from({ length: 40 }, () => ALPHABET[randomInt(ALPHABET.length)]).join('');

export interface LaravelFixture {
  /** Plain tokens as the old service handed them out, by owning username. */
  tokens: { id: number; username: string; plain: string }[];
  passwords: Record<string, string>;
}

// eslint-disable-next-line @typescript-eslint/no-explicit-any
export async function buildLaravelSource(db: Kysely<any>, dialect: SourceDialect, options: { omitColumn?: string } = {}) {
  const t = Object.fromEntries(Object.entries(TYPES[dialect]).map(([name, type]) => [name, sql.raw(type)])) as Record<
    keyof (typeof TYPES)['mysql'],
    ReturnType<typeof sql.raw>
  >;
  const id = (table: ReturnType<typeof db.schema.createTable>) =>
    dialect === 'postgres'
      ? table.addColumn('id', t.id, (c) => c.primaryKey())
      : table.addColumn('id', t.id, (c) => c.primaryKey().autoIncrement().notNull());

  let users = id(db.schema.createTable('users'));
  for (const column of ['username', 'email', 'firstname', 'lastname']) {
    if (column !== options.omitColumn) users = users.addColumn(column, 'varchar(255)', (c) => c.notNull());
  }
  users = users.addColumn('gender_id', 'integer').addColumn('type_id', 'integer');
  for (const column of ['phonenumber', 'phonenumber_mobile', 'street', 'housenumber', 'zip', 'city']) {
    users = users.addColumn(column, 'varchar(255)');
  }
  await users
    .addColumn('is_vegetarian', t.flag, (c) => c.notNull().defaultTo(dialect === 'postgres' ? false : 0))
    .addColumn('can_swimm', t.flag, (c) => c.notNull().defaultTo(dialect === 'postgres' ? false : 0))
    .addColumn('email_verified_at', t.timestamp)
    .addColumn('password', 'varchar(255)', (c) => c.notNull())
    .addColumn('remember_token', 'varchar(100)')
    .addColumn('created_at', t.timestamp)
    .addColumn('updated_at', t.timestamp)
    .execute();
  await id(db.schema.createTable('personal_access_tokens'))
    .addColumn('tokenable_type', 'varchar(255)', (c) => c.notNull())
    .addColumn('tokenable_id', t.bigint, (c) => c.notNull())
    .addColumn('name', 'varchar(255)', (c) => c.notNull())
    .addColumn('token', 'varchar(64)', (c) => c.notNull().unique())
    .addColumn('abilities', 'text')
    .addColumn('last_used_at', t.timestamp)
    .addColumn('expires_at', t.timestamp)
    .addColumn('created_at', t.timestamp)
    .addColumn('updated_at', t.timestamp)
    .execute();

  const passwords = { alice: 'alice-secret', bob: 'bob-secret', carol: 'carol-secret' };
  const bcrypt = async (plain: string) => (await bcryptHash(plain, 10)).replace(/^\$2b\$/, '$2y$');
  const flag = (value: boolean) => (dialect === 'postgres' ? value : value ? 1 : 0);
  const people = [
    { id: 1, username: 'alice', email: 'alice@example.com', firstname: 'Alice', lastname: 'A', gender_id: 2, city: 'Bonn', is_vegetarian: flag(true), can_swimm: flag(true), created_at: '2024-03-01 10:00:00', updated_at: '2024-03-02 11:30:00' },
    { id: 2, username: 'bob', email: 'bob@example.com', firstname: 'Bob', lastname: 'B', gender_id: null, city: null, is_vegetarian: flag(false), can_swimm: flag(false), created_at: null, updated_at: null },
    { id: 5, username: 'carol', email: 'carol@example.com', firstname: 'Carol', lastname: 'C', gender_id: 1, city: 'Köln', is_vegetarian: flag(false), can_swimm: flag(true), created_at: '2023-12-31 23:59:59', updated_at: '2024-01-01 00:00:00' },
  ];
  for (const person of people) {
    const row: Record<string, unknown> = { ...person, password: await bcrypt(passwords[person.username as keyof typeof passwords]) };
    delete row[options.omitColumn ?? ''];
    await db.insertInto('users').values(row).execute();
  }

  // Sanctum: plain = Str::random(40) . hash('crc32b', it) (newer) or Str::random(40) (older); stored sha256(plain).
  const withChecksum = () => {
    const entropy = strRandom40();
    return entropy + crc32(entropy).toString(16).padStart(8, '0');
  };
  const tokenRows = [
    { id: 1, username: 'alice', userId: 1, plain: withChecksum(), last_used_at: '2024-05-01 08:00:00' },
    { id: 2, username: 'alice', userId: 1, plain: strRandom40(), last_used_at: null },
    { id: 7, username: 'carol', userId: 5, plain: withChecksum(), last_used_at: null },
  ];
  for (const token of tokenRows) {
    await db
      .insertInto('personal_access_tokens')
      .values({
        id: token.id,
        tokenable_type: 'App\\Models\\User',
        tokenable_id: token.userId,
        name: 'API-Key',
        token: createHash('sha256').update(token.plain).digest('hex'),
        abilities: '["*"]',
        last_used_at: token.last_used_at,
        expires_at: null,
        created_at: '2024-04-01 12:00:00',
        updated_at: '2024-04-01 12:00:00',
      })
      .execute();
  }
  const fixture: LaravelFixture = {
    tokens: tokenRows.map(({ id: tokenId, username, plain }) => ({ id: tokenId, username, plain: `${tokenId}|${plain}` })),
    passwords,
  };
  return fixture;
}
