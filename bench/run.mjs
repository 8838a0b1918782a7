#!/usr/bin/env node
// npm run bench -- [--duration 10] [--warmup 3] [--connections 50] [--scenarios a,b]
//                  [--tenants 1000] [--users 20] [--smoke]
// Builds the project, starts the production server on a temporary data directory with rate
// limits out of the way, and measures each scenario for a fixed time after a warm-up, with the
// same connection count, next to a bare Fastify server (the baseline) measured in the same run.
// The scenarios, the targets and the latest figures: docs/benchmarks/README.md.
import autocannon from 'autocannon';
import pg from 'pg';
import { execFileSync, spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { get as httpGet, request as httpRequest } from 'node:http';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';

const ALL = ['baseline', 'user', 'user-invalid', 'login', 'mix', 'tenants', 'user-under-login', 'people-page', 'people-page-sqlite', 'people-page-peer', 'people-page-100k', 'people-export-100k', 'people-export-100k-xlsx', 'register-storm', 'event-summary', 'message-3000'];
const { values } = parseArgs({
  options: {
    duration: { type: 'string', default: '10' },
    warmup: { type: 'string', default: '3' },
    connections: { type: 'string', default: '50' },
    scenarios: { type: 'string', default: ALL.join(',') },
    tenants: { type: 'string', default: '1000' },
    users: { type: 'string', default: '20' },
    smoke: { type: 'boolean', default: false },
    'no-build': { type: 'boolean', default: false },
  },
});
const smoke = values.smoke;
const duration = smoke ? 1 : Number(values.duration);
const warmup = smoke ? 0 : Number(values.warmup);
const connections = Number(values.connections);
const tenants = smoke ? 10 : Number(values.tenants);
const usersPerTenant = smoke ? 3 : Number(values.users);
const asked = values.scenarios.split(',').map((s) => s.trim());
for (const name of asked) if (!ALL.includes(name)) throw new Error(`unknown scenario ${name}; known: ${ALL.join(', ')}`);
// Always in ALL's order, whatever the order asked: the table reads the same in every run.
let scenarios = ALL.filter((name) => asked.includes(name));
if (process.env.DATABASE_URL && scenarios.includes('people-page-peer')) {
  // The peer reads the SQLite file; on PostgreSQL the people-page row is compared with SQLite's.
  process.stderr.write('people-page-peer: SQLite only, left out with DATABASE_URL\n');
  scenarios = scenarios.filter((name) => name !== 'people-page-peer');
}
if (!process.env.DATABASE_URL && scenarios.includes('people-page-sqlite')) {
  // It is the SQLite figure PostgreSQL's people page is compared with, in the same run.
  process.stderr.write('people-page-sqlite: PostgreSQL runs only, left out without DATABASE_URL\n');
  scenarios = scenarios.filter((name) => name !== 'people-page-sqlite');
}

const root = fileURLToPath(new URL('..', import.meta.url));
if (!values['no-build']) execFileSync('npm', ['run', 'build'], { cwd: root, stdio: 'ignore' });
const { setupData, setupPeople, peoplePages, setupEvents, registerStorm, setupMailing, PASSWORD } = await import('./setup-data.mjs');

// Both servers run with the Node flags `npm start` gives the service (package.json), so the
// numbers are those of `npm start`, and the baseline is measured on equal terms.
const startCommand = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')).scripts.start.split(/\s+/);
const nodeFlags = startCommand.filter((arg) => arg.startsWith('--'));
// ... and the script it runs (the bundle, not the compiled tree beside it).
const SERVER = startCommand.at(-1);

const freePort = () =>
  new Promise((resolve) => {
    const probe = createServer().listen(0, '127.0.0.1', () => {
      const { port } = probe.address();
      probe.close(() => resolve(port));
    });
  });

/**
 * Starts a server with its output going to /dev/null (as to a log collector: reading it here
 * would take CPU from the load generator) and waits until it answers.
 */
async function start(script, env, readyPath) {
  const port = await freePort();
  const child = spawn(process.execPath, [...nodeFlags, script], { cwd: root, env: { ...env, PORT: String(port) }, stdio: ['ignore', 'ignore', 'inherit'] });
  for (let attempt = 0; ; attempt++) {
    if (child.exitCode !== null) throw new Error(`${script} exited with ${child.exitCode}`);
    const ready = await fetch(`http://127.0.0.1:${port}${readyPath}`).then((r) => r.ok, () => false);
    if (ready) return { child, port };
    if (attempt > 300) {
      // Never leave a server behind (it would hold its database, and the next run's port).
      child.kill('SIGKILL');
      throw new Error(`${script} did not answer ${readyPath} within 30 s`);
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}
const stop = (child) => new Promise((resolve) => (child.exitCode !== null ? resolve() : (child.once('exit', resolve), child.kill('SIGTERM'))));
const peakRssMb = (pid) => {
  const match = /VmHWM:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  return match ? Math.round(Number(match[1]) / 1024) : null;
};
const load = (options) =>
  new Promise((resolve, reject) => {
    autocannon({ connections, ...options }, (err, result) => (err ? reject(err) : resolve(result)));
  });

// One data directory with the benchmark tenant only, and one with many tenants besides, each
// served by its own server: the single-tenant rows then show a single tenant's memory.
// `shared`: false for a SQLite data directory in a PostgreSQL run.
const envFor = (dataDir, { shared = true } = {}) => ({
  PATH: process.env.PATH,
  DATA_DIR: dataDir,
  PORT: '0',
  HOST: '127.0.0.1',
  LOG_LEVEL: 'info',
  RATE_LIMIT_AUTHENTICATED: '1000000000',
  RATE_LIMIT_UNAUTHENTICATED: '1000000000',
  ...(shared && process.env.DATABASE_URL ? { DATABASE_URL: process.env.DATABASE_URL } : {}),
  ...(shared && process.env.REDIS_URL ? { REDIS_URL: process.env.REDIS_URL } : {}),
});
const singleDir = mkdtempSync(join(tmpdir(), 'groupadmin-bench-'));
const manyDir = mkdtempSync(join(tmpdir(), 'groupadmin-bench-many-'));
const sqliteDir = mkdtempSync(join(tmpdir(), 'groupadmin-bench-sqlite-'));
const env = envFor(singleDir);
const manyEnv = envFor(manyDir);
if (env.DATABASE_URL) {
  // One PostgreSQL database holds both sets: the many tenants are added to the same registry.
  manyEnv.DATA_DIR = singleDir;
}
const { benchToken } = await setupData(env, { tenants: 0, usersPerTenant });
let people;
if (scenarios.includes('people-page') || scenarios.includes('people-page-sqlite') || scenarios.includes('people-page-peer')) {
  process.stderr.write('setting up 10,000 people in 400 groups...\n');
  people = await setupPeople(env, { people: smoke ? 500 : 10_000 });
}
// On PostgreSQL, the same tenant once more in a SQLite file: a target compares the two people
// pages, each a ratio measured in one run; the two walks are then seconds apart, not a run apart.
// The SQLite server counts its rate limits in its own process, as a single SQLite instance does.
let sqlitePeople;
const sqliteEnv = envFor(sqliteDir, { shared: false });
if (scenarios.includes('people-page-sqlite')) {
  process.stderr.write('setting up the same 10,000 people in a SQLite file...\n');
  sqlitePeople = await setupPeople(sqliteEnv, { people: smoke ? 500 : 10_000 });
}
// The same shape ten times wider (4 regions, 400 districts, 3,550 troops, 100,000 people): a page
// must cost what it costs on 10,000 (a target), and the CSV export of everyone stays in bounds.
let people100k;
if (scenarios.includes('people-page-100k') || scenarios.includes('people-export-100k') || scenarios.includes('people-export-100k-xlsx')) {
  process.stderr.write('setting up 100,000 people in 3,955 groups...\n');
  people100k = await setupPeople(env, smoke ? { people: 1000, slug: 'people-100k' } : { people: 100_000, slug: 'people-100k', width: 10 });
}
let events;
if (scenarios.includes('register-storm') || scenarios.includes('event-summary')) {
  process.stderr.write('setting up the events tenant (storms of 500 registrations, a camp of 1,000)...\n');
  events = await setupEvents(env, smoke ? { storms: 1, stormPeople: 150, summaryPeople: 100 } : {});
}
let mailing;
if (scenarios.includes('message-3000')) {
  process.stderr.write('setting up a troop of 3,000 families with e-mail addresses...\n');
  mailing = await setupMailing(env, smoke ? { people: 300 } : {});
}
let spread = [];
if (scenarios.includes('tenants')) {
  process.stderr.write(`setting up ${tenants} tenants x ${usersPerTenant} users...\n`);
  ({ spread } = await setupData(manyEnv, { tenants, usersPerTenant, benchTenant: !env.DATABASE_URL }));
}
if (env.DATABASE_URL) {
  // Every table was just written in bulk. PostgreSQL plans by its statistics of a table, and an
  // index-only scan reads the table as well until its visibility map is set; a running database
  // has both from autovacuum, which would otherwise come to these tables in the middle of a
  // scenario. So the whole database is vacuumed and analyzed once, after all the set-up.
  process.stderr.write('vacuum analyze...\n');
  const client = new pg.Client({ connectionString: env.DATABASE_URL });
  client.on('error', () => {}); // a lost connection fails the query below
  try {
    await client.connect();
    await client.query('vacuum (analyze)');
  } finally {
    await client.end();
  }
}

const json = { 'content-type': 'application/json', accept: 'application/json' };
const userRequest = { method: 'GET', path: '/api/user', headers: { host: 'bench.localhost', accept: 'application/json', authorization: `Bearer ${benchToken}` } };
const invalidRequest = { ...userRequest, headers: { ...userRequest.headers, authorization: `Bearer ${benchToken.split('|')[0]}|not-the-secret` } };
const loginRequest = { method: 'POST', path: '/api/login', headers: { host: 'bench.localhost', ...json }, body: JSON.stringify({ username: 'user1', password: PASSWORD }) };
const spreadRequest = {
  method: 'GET',
  path: '/api/user',
  setupRequest: (request) => {
    const pick = spread[Math.floor(Math.random() * spread.length)];
    return { ...request, headers: { host: pick.host, accept: 'application/json', authorization: `Bearer ${pick.token}` } };
  },
};

/** Requests that visit the many-tenants tokens in turn, each once per round. */
const everyTokenOnce = () => {
  let next = 0;
  return {
    ...spreadRequest,
    setupRequest: (request) => {
      const pick = spread[next++ % spread.length];
      return { ...request, headers: { host: pick.host, accept: 'application/json', authorization: `Bearer ${pick.token}` } };
    },
  };
};

const results = [];
/** `at`: a scenario's own number of connections, where its target names one. */
async function measure(name, port, requests, { expect2xx = true, extra, prime, at } = {}) {
  const url = `http://127.0.0.1:${port}`;
  const own = at === undefined ? {} : { connections: at };
  if (prime && !smoke) await load({ url, ...prime });
  if (warmup > 0) await load({ url, requests, duration: warmup, ...own });
  const [result] = await Promise.all([load({ url, requests, duration, ...own }), extra?.(url)]);
  const row = {
    scenario: name,
    requestsPerSecond: Math.round(result.requests.average),
    p50Ms: result.latency.p50,
    p99Ms: result.latency.p99,
    non2xx: result.non2xx,
    errors: result.errors + result.timeouts,
    expect2xx,
  };
  results.push(row);
  process.stderr.write(`${name}: ${row.requestsPerSecond} req/s, p99 ${row.p99Ms} ms\n`);
  return row;
}

if (scenarios.includes('baseline')) {
  const baseline = await start(join(root, 'bench/baseline-server.mjs'), { PATH: process.env.PATH }, '/api/user');
  const row = await measure('baseline', baseline.port, [{ method: 'GET', path: '/api/user' }]);
  row.peakRssMb = peakRssMb(baseline.child.pid);
  await stop(baseline.child);
}

const server = await start(join(root, SERVER), env, '/ready');
/** A scenario on a server of its own (the many tenants, the 100,000 people), so the peak RSS it reports is the scenario's. */
async function onOwnServer(serverEnv, run) {
  const own = await start(join(root, SERVER), serverEnv, '/ready');
  try {
    const row = await run(own.port);
    row.peakRssMb = peakRssMb(own.child.pid);
    return row;
  } finally {
    await stop(own.child);
  }
}
/** Reads a whole answer as it streams in, counting its lines (never holding it). */
const downloadLines = (url, headers) =>
  new Promise((resolve, reject) => {
    httpGet(url, { headers }, (response) => {
      let lines = 0;
      response.on('data', (chunk) => {
        for (const byte of chunk) if (byte === 0x0a) lines++;
      });
      response.on('end', () => resolve({ status: response.statusCode, lines }));
    }).on('error', reject);
  });
/** A JSON POST with the given headers (Host among them), its answer read whole. */
const postJson = (url, headers, body) =>
  new Promise((resolve, reject) => {
    const text = JSON.stringify(body);
    const request = httpRequest(url, { method: 'POST', headers: { ...headers, ...json, 'content-length': Buffer.byteLength(text) } }, (response) => {
      const chunks = [];
      response.on('data', (chunk) => chunks.push(chunk));
      response.on('end', () => resolve({ status: response.statusCode, body: Buffer.concat(chunks).toString('utf8') }));
    });
    request.on('error', reject);
    request.end(text);
  });
/** Reads a whole answer into memory (an XLSX file is read back whole). */
const downloadBody = (url, headers) =>
  new Promise((resolve, reject) => {
    httpGet(url, { headers }, (response) => {
      const chunks = [];
      response.on('data', (chunk) => chunks.push(chunk));
      response.on('end', () => resolve({ status: response.statusCode, body: Buffer.concat(chunks) }));
    }).on('error', reject);
  });
/** The data rows of a workbook's first sheet (its header not counted), read with exceljs. */
async function workbookRows(body) {
  const { default: ExcelJS } = await import('exceljs');
  const workbook = new ExcelJS.Workbook();
  await workbook.xlsx.load(body);
  return workbook.worksheets[0].rowCount - 1;
}
/** The people-page targets are stated at 32 connections, whatever --connections says. */
const PEOPLE_CONNECTIONS = 32;
/** A region leader's walk through every page of the region (`set` from setupPeople), in turn. */
async function walkPeople(port, set, nameFor) {
  const { paths, count } = await peoplePages(`http://127.0.0.1:${port}`, set);
  process.stderr.write(`${set.slug}: ${count} people on ${paths.length} pages\n`);
  let next = 0;
  const headers = { host: set.host, accept: 'application/json', authorization: `Bearer ${set.token}` };
  const pageRequest = { method: 'GET', setupRequest: (request) => ({ ...request, path: paths[next++ % paths.length], headers }) };
  return measure(nameFor(count), port, [pageRequest], { at: PEOPLE_CONNECTIONS });
}
const product = {
  user: () => measure('GET /api/user', server.port, [userRequest]),
  'user-invalid': () => measure('GET /api/user, invalid token (401)', server.port, [invalidRequest], { expect2xx: false }),
  login: () => measure('POST /api/login', server.port, [loginRequest]),
  mix: () =>
    measure('mix (8 user : 1 invalid : 1 login)', server.port, [...Array(8).fill(userRequest), invalidRequest, loginRequest], { expect2xx: false }),
  // Primed with one request per token, so the run shows a running server's cost of many tenants
  // rather than the first read of every token row.
  tenants: () =>
    onOwnServer(manyEnv, (port) =>
      measure(`GET /api/user, ${tenants} tenants x ${usersPerTenant} users`, port, [spreadRequest], {
        prime: { requests: [everyTokenOnce()], amount: spread.length },
      })),
  // A region leader lists the region's subtree, 50 people a page, following the cursors: every
  // page of the walk is requested in turn, on the server of the scenarios before it (a running
  // server: on a fresh one the same walk measured a longer tail, p99 16-22 ms against 13-14).
  'people-page': () => walkPeople(server.port, people, (count) => `GET /api/people, region subtree, 50 a page (${count} people)`),
  // PostgreSQL's walk against SQLite's, alike: each on a fresh server, one right after the other
  // (the target: PostgreSQL's page at least 0.7 x SQLite's; the ratio is taken after the run).
  'people-page-sqlite': async () => {
    await onOwnServer(env, (port) => walkPeople(port, people, (count) => `GET /api/people on PostgreSQL, a fresh server (${count} people)`));
    return onOwnServer(sqliteEnv, (port) => walkPeople(port, sqlitePeople, (count) => `GET /api/people on SQLite, a fresh server, the same walk in this run (${count} people)`));
  },
  // The same walk on the tenant ten times the size.
  'people-page-100k': () =>
    onOwnServer(env, (port) => walkPeople(port, people100k, (count) => `GET /api/people, region subtree, 50 a page (${count} people of 100,000)`)),
  // An administrator downloads everyone as CSV, on a server of its own: the time and the peak RSS.
  'people-export-100k': () =>
    onOwnServer(env, async (port) => {
      const started = performance.now();
      const { status, lines } = await downloadLines(`http://127.0.0.1:${port}/api/people?sort=name`, {
        host: people100k.host, accept: 'text/csv', authorization: `Bearer ${people100k.adminToken}`,
      });
      const ms = Math.round(performance.now() - started);
      const rows = lines - 1;
      const row = {
        scenario: `GET /api/people as CSV, everyone (${rows} rows in ${ms} ms; req/s = rows/s)`,
        requestsPerSecond: Math.round((rows * 1000) / ms),
        p50Ms: ms,
        p99Ms: ms,
        non2xx: status === 200 ? 0 : 1,
        errors: 0,
        expect2xx: true,
      };
      results.push(row);
      process.stderr.write(`people-export-100k: ${rows} rows in ${ms} ms\n`);
      return row;
    }),
  // The same download as an Excel workbook (format=xlsx): the time and the peak RSS beside the CSV's.
  'people-export-100k-xlsx': () =>
    onOwnServer(env, async (port) => {
      const started = performance.now();
      const { status, body } = await downloadBody(`http://127.0.0.1:${port}/api/people?sort=name&format=xlsx`, {
        host: people100k.host, authorization: `Bearer ${people100k.adminToken}`,
      });
      const ms = Math.round(performance.now() - started);
      // Read back after the clock stops (in this process, not the server's): every row there.
      const rows = status === 200 ? await workbookRows(body) : 0;
      const row = {
        scenario: `GET /api/people as XLSX, everyone (${rows} rows, ${(body.length / 1_048_576).toFixed(1)} MB in ${ms} ms; req/s = rows/s)`,
        requestsPerSecond: Math.round((rows * 1000) / ms),
        p50Ms: ms,
        p99Ms: ms,
        non2xx: status === 200 ? 0 : 1,
        errors: 0,
        expect2xx: true,
      };
      results.push(row);
      process.stderr.write(`people-export-100k-xlsx: ${rows} rows in ${ms} ms\n`);
      return row;
    }),
  // The same walk through the same data, answered by the peer (bench/peer-people-server.mjs):
  // the SQL one writes first, OFFSET paging. The target asks people-page for 10 x its req/s.
  'people-page-peer': async () => {
    const { count } = await peoplePages(`http://127.0.0.1:${server.port}`, people);
    const pages = Math.ceil(count / 50);
    const peer = await start(join(root, 'bench/peer-people-server.mjs'), { PATH: process.env.PATH, DATA_DIR: env.DATA_DIR, TENANT: people.slug }, '/ready');
    try {
      let next = 0;
      const pageRequest = { method: 'GET', setupRequest: (request) => ({ ...request, path: `/api/people?group_id=${people.regionId}&below=true&limit=50&page=${next++ % pages}` }) };
      const row = await measure(`peer: Express 5 + better-sqlite3, the same pages (recursive CTE, ORDER BY, OFFSET)`, peer.port, [pageRequest], { at: PEOPLE_CONNECTIONS });
      row.peakRssMb = peakRssMb(peer.child.pid);
      return row;
    } finally {
      await stop(peer.child);
    }
  },
  // 500 scouts register at once for a camp of 100 seats (three camps, one storm each): the time
  // until the last answer is in, and whether the counts came out exact.
  // On PostgreSQL, two instances share the storm (the targets: within 3 s there, 2 s on SQLite).
  'register-storm': async () => {
    const second = env.DATABASE_URL ? await start(join(root, SERVER), env, '/ready') : null;
    const urls = [server.port, ...(second ? [second.port] : [])].map((port) => `http://127.0.0.1:${port}`);
    const storms = [];
    try {
      for (const eventId of events.stormEvents) storms.push(await registerStorm(urls, events, eventId));
    } finally {
      if (second) await stop(second.child);
    }
    const people = events.scoutTokens.length;
    const seats = Math.min(100, people);
    const exact = storms.every(({ answers, event }) =>
      answers.every((a) => a.status === 201) && event.participants_count === seats && event.waitlist_count === people - seats);
    const totals = storms.map((storm) => Math.round(storm.totalMs)).sort((a, b) => a - b);
    const latencies = storms.flatMap((storm) => storm.answers.map((a) => a.ms)).sort((a, b) => a - b);
    const at = (q) => Math.round(latencies[Math.min(latencies.length - 1, Math.floor(q * latencies.length))]);
    const median = totals[Math.floor(totals.length / 2)];
    const row = {
      scenario: `register-storm: ${people} at once, capacity ${seats}, ${urls.length} instance${urls.length > 1 ? 's' : ''} (ms until all answered: ${totals.join(', ')})`,
      requestsPerSecond: Math.round((people * 1000) / median),
      p50Ms: at(0.5),
      p99Ms: at(0.99),
      non2xx: storms.flatMap((storm) => storm.answers).filter((a) => a.status !== 201).length,
      errors: exact ? 0 : 1,
      expect2xx: true,
      stormTotalsMs: totals,
      countsExact: exact,
    };
    results.push(row);
    process.stderr.write(`register-storm: ${totals.join(', ')} ms, counts exact: ${exact}\n`);
    return row;
  },
  'event-summary': () => {
    const headers = { host: events.host, accept: 'application/json', authorization: `Bearer ${events.managerToken}` };
    return measure('GET /api/events/{id}/summary, 1,000 participants', server.port, [{ method: 'GET', path: `/api/events/${events.summaryEvent}/summary`, headers }]);
  },
  // A leader writes to a troop of 3,000 families: the time until the answer, and until every mail
  // (and the sender's copy) is handed to a real SMTP server on this machine (smtp-server). Its own
  // server process, so the peak RSS is that of sending them.
  'message-3000': async () => {
    const { SMTPServer } = await import('smtp-server');
    let received = 0;
    let lastAt = 0;
    const sink = new SMTPServer({
      authOptional: true, disabledCommands: ['STARTTLS'], logger: false,
      onData(stream, session, callback) {
        stream.on('end', () => {
          // Only the message's mails: the worker also sends what other scenarios' tenants held.
          if (session.envelope.rcptTo.every((to) => to.address.endsWith('@families.example.org'))) {
            received++;
            lastAt = performance.now();
          }
          callback();
        });
        stream.resume();
      },
    });
    await new Promise((resolve) => sink.listen(0, '127.0.0.1', resolve));
    const smtpUrl = `smtp://127.0.0.1:${sink.server.address().port}`;
    try {
      return await onOwnServer({ ...env, SMTP_URL: smtpUrl }, async (port) => {
        const expected = mailing.people + 1;
        const started = performance.now();
        // node:http, not fetch: fetch sets Host from the address, and the host names the tenant.
        const answer = await postJson(`http://127.0.0.1:${port}/api/messages`, { host: mailing.host, authorization: `Bearer ${mailing.leaderToken}` }, {
          subject: 'The bus leaves at 8', body: 'Dear families,\n\nthe bus leaves at 8 from the station.\n\nLena', to: { group_id: mailing.groupId },
        });
        const answeredMs = Math.round(performance.now() - started);
        if (answer.status !== 201) process.stderr.write(`message-3000: ${answer.status} ${answer.body}\n`);
        const deadline = started + 5 * 60_000;
        while (received < expected && performance.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 50));
        const allMs = Math.round(lastAt - started);
        const row = {
          scenario: `POST /api/messages to ${mailing.people} families: answered in ${answeredMs} ms, ${received} of ${expected} mails handed to SMTP in ${allMs} ms (req/s = mails/s)`,
          requestsPerSecond: Math.round((received * 1000) / Math.max(1, allMs)),
          p50Ms: answeredMs,
          p99Ms: allMs,
          non2xx: answer.status === 201 ? 0 : 1,
          errors: received === expected ? 0 : 1,
          expect2xx: true,
        };
        results.push(row);
        process.stderr.write(`message-3000: answered in ${answeredMs} ms, ${received}/${expected} mails in ${allMs} ms\n`);
        return row;
      });
    } finally {
      await new Promise((resolve) => sink.close(resolve));
    }
  },
  'user-under-login': () =>
    measure('GET /api/user while logins run', server.port, [userRequest], {
      extra: (url) => new Promise((resolve, reject) =>
        autocannon({ url, connections: 4, duration: duration + 1, requests: [loginRequest] }, (err, r) => (err ? reject(err) : resolve(r)))),
    }),
};
try {
  for (const name of scenarios) {
    if (name === 'baseline') continue;
    const row = await product[name]();
    row.peakRssMb ??= peakRssMb(server.child.pid);
  }
} finally {
  // A failed scenario must not leave the server running (and holding this process's output).
  await stop(server.child);
}
rmSync(singleDir, { recursive: true, force: true });
rmSync(manyDir, { recursive: true, force: true });
rmSync(sqliteDir, { recursive: true, force: true });

// PostgreSQL's people page against SQLite's, both measured in this run (the target: at least 0.7 x).
const onPostgres = results.find((r) => r.scenario.startsWith('GET /api/people on PostgreSQL, a fresh server'));
const onSqlite = results.find((r) => r.scenario.startsWith('GET /api/people on SQLite'));
if (onSqlite && onPostgres && onSqlite.requestsPerSecond > 0) {
  onSqlite.postgresRatio = Math.round((onPostgres.requestsPerSecond / onSqlite.requestsPerSecond) * 100) / 100;
  onSqlite.scenario += `: PostgreSQL's page ${onSqlite.postgresRatio} x this`;
  process.stderr.write(`people-page on PostgreSQL: ${onSqlite.postgresRatio} x SQLite in this run\n`);
}
const base = results.find((r) => r.scenario === 'baseline');
for (const row of results) row.ratioToBaseline = base ? Math.round((row.requestsPerSecond / base.requestsPerSecond) * 100) / 100 : null;

const header = ['scenario', 'req/s', 'p50 ms', 'p99 ms', 'non-2xx', 'errors', 'peak RSS MB', 'x baseline'];
const lines = results.map((r) => [r.scenario, r.requestsPerSecond, r.p50Ms, r.p99Ms, r.non2xx, r.errors, r.peakRssMb, r.ratioToBaseline ?? '-']);
const widths = header.map((h, i) => Math.max(h.length, ...lines.map((l) => String(l[i]).length)));
const format = (cells) => `| ${cells.map((c, i) => String(c).padEnd(widths[i])).join(' | ')} |`;
const table = [format(header), `|${widths.map((w) => '-'.repeat(w + 2)).join('|')}|`, ...lines.map(format)].join('\n');
console.log(table);

const report = {
  date: new Date().toISOString(),
  node: process.version,
  cpus: (await import('node:os')).cpus().length,
  storage: env.DATABASE_URL ? 'postgres' : 'sqlite',
  options: { duration, warmup, connections, tenants, usersPerTenant, smoke, nodeFlags },
  results,
};
mkdirSync(join(root, 'bench/results'), { recursive: true });
const file = join(root, 'bench/results', `${smoke ? 'smoke' : 'bench'}-${report.date.replace(/[:.]/g, '-')}.json`);
writeFileSync(file, `${JSON.stringify(report, null, 2)}\n`);
if (!smoke) writeFileSync(join(root, 'bench/results/latest.json'), `${JSON.stringify(report, null, 2)}\n`);
console.log(`written to ${file}`);
const bad = results.filter((r) => r.expect2xx && (r.non2xx > 0 || r.errors > 0));
if (bad.length > 0) {
  console.error(`non-2xx answers or errors in: ${bad.map((r) => r.scenario).join(', ')}`);
  process.exit(1);
}
