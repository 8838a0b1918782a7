// Fails (exit 1) unless the PostgreSQL of DATABASE_URL, the Redis of REDIS_URL and (when set)
// the MariaDB/MySQL of MYSQL_URL all answer.
// CI runs it before the suite's second run, so that run can never pass by skipping.
import pg from 'pg';
import { Redis } from 'ioredis';
import { createConnection } from 'mysql2/promise';

const problems = [];
try {
  const client = new pg.Client({ connectionString: process.env.DATABASE_URL, connectionTimeoutMillis: 5000 });
  await client.connect();
  const { rows } = await client.query('select version()');
  console.log(`PostgreSQL: ${rows[0].version.split(',')[0]}`);
  await client.end();
} catch (err) {
  problems.push(`PostgreSQL at ${process.env.DATABASE_URL} is not reachable: ${err.message}`);
}
try {
  const redis = new Redis(process.env.REDIS_URL, { lazyConnect: true, maxRetriesPerRequest: 0, retryStrategy: () => null });
  redis.on('error', () => {});
  await redis.connect();
  console.log(`Redis: ${await redis.ping()}`);
  redis.disconnect();
} catch (err) {
  problems.push(`Redis at ${process.env.REDIS_URL} is not reachable: ${err.message}`);
}
if (process.env.MYSQL_URL) {
  try {
    const connection = await createConnection(process.env.MYSQL_URL);
    const [rows] = await connection.query('select version() as version');
    console.log(`MySQL/MariaDB: ${rows[0].version}`);
    await connection.end();
  } catch (err) {
    problems.push(`MySQL/MariaDB at ${process.env.MYSQL_URL} is not reachable: ${err.message}`);
  }
}
if (problems.length > 0) {
  for (const problem of problems) console.error(problem);
  process.exit(1);
}
