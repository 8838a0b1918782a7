#!/usr/bin/env node
// Soak test: a mixed load against the built server for --seconds, then the verdict.
//   npm run soak -- --seconds 60 [--concurrency 16]
// Passes (exit 0) when there was no 5xx and no unexpected answer, every token created is usable
// or revoked as expected, and (for runs of 20 s or more) RSS grew less than 10% from second 10
// to the end. Uses DATA_DIR (a temporary one by default), DATABASE_URL and REDIS_URL as given.
import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { Agent, request } from 'node:http';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { fileURLToPath } from 'node:url';

const { values } = parseArgs({ options: { seconds: { type: 'string', default: '60' }, concurrency: { type: 'string', default: '16' } } });
const seconds = Number(values.seconds);
const concurrency = Number(values.concurrency);
if (!(seconds > 0) || !(concurrency > 0)) {
  console.error('usage: soak [--seconds N] [--concurrency N]');
  process.exit(2);
}

const root = fileURLToPath(new URL('..', import.meta.url));
const ownDataDir = !process.env.DATA_DIR;
const dataDir = process.env.DATA_DIR ?? mkdtempSync(join(tmpdir(), 'groupadmin-soak-'));
const port = await new Promise((resolve) => {
  const probe = createServer().listen(0, '127.0.0.1', () => {
    const { port: free } = probe.address();
    probe.close(() => resolve(free));
  });
});
const env = {
  ...process.env,
  DATA_DIR: dataDir,
  PORT: String(port),
  HOST: '127.0.0.1',
  LOG_LEVEL: 'warn',
  RATE_LIMIT_AUTHENTICATED: '1000000000',
  RATE_LIMIT_UNAUTHENTICATED: '1000000000',
};
const cli = (args, input = '') => {
  const result = spawnSync(process.execPath, [join(root, 'bin/groupadmin.js'), ...args], { env, input, encoding: 'utf8' });
  if (result.status !== 0) throw new Error(`groupadmin ${args.join(' ')}: ${result.stderr}`);
};
const TENANT = `soak-${process.pid}`;
const USERS = ['u1', 'u2', 'u3', 'u4', 'u5'];
const PASSWORD = 'soak password 123';
cli(['migrate']);
cli(['tenant', 'create', TENANT]);
for (const user of USERS) {
  cli(['user', 'create', TENANT, user, '--email', `${user}@example.com`, '--firstname', 'S', '--lastname', 'T', '--password-stdin'], PASSWORD);
}

const server = spawn(process.execPath, [join(root, 'dist/bundle/server.js')], { env, stdio: ['ignore', 2, 'inherit'] });
const agent = new Agent({ keepAlive: true, maxSockets: concurrency });
const host = `${TENANT}.localhost`;
const call = (method, path, { token, body, raw } = {}) =>
  new Promise((resolve, reject) => {
    const headers = { host, accept: 'application/json' };
    if (token) headers.authorization = `Bearer ${token}`;
    const payload = raw ?? (body === undefined ? undefined : JSON.stringify(body));
    if (payload !== undefined) headers['content-type'] = 'application/json';
    const req = request({ host: '127.0.0.1', port, method, path, headers, agent }, (res) => {
      let text = '';
      res.on('data', (chunk) => (text += chunk));
      res.on('end', () => resolve({ status: res.statusCode, text }));
    });
    req.on('error', reject);
    if (payload !== undefined) req.write(payload);
    req.end();
  });

for (let i = 0; ; i++) {
  try {
    if ((await call('GET', '/ready')).status === 200) break;
  } catch {
    if (i > 100) throw new Error('server did not start');
  }
  await new Promise((resolve) => setTimeout(resolve, 100));
}

const rss = () => {
  const match = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${server.pid}/status`, 'utf8'));
  return match ? Number(match[1]) * 1024 : 0;
};
const live = new Map(USERS.map((user) => [user, []])); // user -> tokens [{ id, plain }]
const revoked = [];
const statuses = {};
const problems = [];
const pick = (list) => list[Math.floor(Math.random() * list.length)];
/** Runs `use` with one of the user's tokens, which cannot be revoked while it is in use. */
const withToken = async (tokens, use) => {
  const token = pick(tokens);
  token.busy = (token.busy ?? 0) + 1;
  try {
    return await use(token);
  } finally {
    token.busy--;
  }
};
const expectStatus = (what, got, ...wanted) => {
  statuses[got.status] = (statuses[got.status] ?? 0) + 1;
  if (!wanted.includes(got.status) && problems.length < 20) problems.push(`${what}: ${got.status} ${got.text.slice(0, 120)}`);
};

async function step() {
  const user = pick(USERS);
  const tokens = live.get(user);
  const roll = Math.random();
  if (roll < 0.15 || tokens.length === 0) {
    const answer = await call('POST', '/api/login', { body: { username: user, password: PASSWORD } });
    expectStatus('login', answer, 200);
    if (answer.status === 200) {
      const plain = JSON.parse(answer.text).api_key.plainTextToken;
      tokens.push({ id: plain.split('|')[0], plain });
    }
  } else if (roll < 0.55) {
    await withToken(tokens, async (token) => expectStatus('user', await call('GET', '/api/user', { token: token.plain }), 200));
  } else if (roll < 0.7) {
    const answer = await withToken(tokens, (token) =>
      call('POST', '/api/tokens', { token: token.plain, body: { name: 'soak', abilities: ['user:read'] } }),
    );
    expectStatus('create token', answer, 201);
    if (answer.status === 201) {
      const plain = JSON.parse(answer.text).data.plainTextToken;
      revokeLater.push({ user, token: { id: plain.split('|')[0], plain } });
    }
  } else if (roll < 0.85) {
    // Revoke an old token nobody is using, with another one: keeps every user's pool small.
    const index = tokens.findIndex((token) => !token.busy);
    if (tokens.length > 2 && index !== -1 && index < tokens.length - 1) {
      const [victim] = tokens.splice(index, 1);
      await withToken(tokens, async (token) =>
        expectStatus('revoke', await call('DELETE', `/api/tokens/${victim.id}`, { token: token.plain }), 204),
      );
      revoked.push(victim);
    } else if (revokeLater.length > 0) {
      const { token } = revokeLater.shift();
      expectStatus('revoked token', await call('GET', '/api/user', { token: token.plain }), 200);
    }
  } else {
    const bad = pick([
      () => call('POST', '/api/login', { raw: '{"username":' }).then((a) => expectStatus('malformed', a, 400)),
      () => call('GET', '/api/user', { token: '1|nonsense' }).then((a) => expectStatus('bad token', a, 401)),
      () => call('GET', '/api/nowhere').then((a) => expectStatus('unknown route', a, 404)),
      () => call('POST', '/api/login', { body: { username: 12 } }).then((a) => expectStatus('invalid', a, 422)),
      () => call('POST', '/api/login', { body: { username: user, password: 'wrong' } }).then((a) => expectStatus('wrong password', a, 401)),
    ]);
    await bad();
  }
}
const revokeLater = [];

const started = Date.now();
const deadline = started + seconds * 1000;
const samples = [];
const sampler = setInterval(() => samples.push({ at: (Date.now() - started) / 1000, rss: rss() }), 1000);
let requests = 0;
await Promise.all(
  Array.from({ length: concurrency }, async () => {
    while (Date.now() < deadline) {
      try {
        await step();
      } catch (err) {
        if (problems.length < 20) problems.push(`request failed: ${err.message}`);
      }
      requests++;
    }
  }),
);
clearInterval(sampler);

// Every token is where it should be: live ones work, revoked ones do not.
for (const tokens of live.values()) for (const token of tokens) expectStatus('live token', await call('GET', '/api/user', { token: token.plain }), 200);
for (const token of revoked) expectStatus('revoked token', await call('GET', '/api/user', { token: token.plain }), 401);

const baseline = samples.find((sample) => sample.at >= Math.min(10, seconds / 2)) ?? samples[0];
const last = samples[samples.length - 1] ?? baseline;
const growth = baseline && last ? (last.rss - baseline.rss) / baseline.rss : 0;
const judgedRss = seconds >= 20;
const serverErrors = Object.entries(statuses).filter(([status]) => Number(status) >= 500).reduce((sum, [, n]) => sum + n, 0);
const summary = {
  seconds,
  concurrency,
  requests,
  requestsPerSecond: Math.round(requests / seconds),
  statuses,
  serverErrors,
  tokensLive: [...live.values()].reduce((sum, tokens) => sum + tokens.length, 0),
  tokensRevoked: revoked.length,
  rssMb: { atBaseline: Math.round((baseline?.rss ?? 0) / 1e6), atEnd: Math.round((last?.rss ?? 0) / 1e6) },
  rssGrowthPercent: Math.round(growth * 1000) / 10,
  rssJudged: judgedRss,
  problems,
};
console.log(JSON.stringify(summary, null, 2));
server.kill('SIGTERM');
agent.destroy();
await new Promise((resolve) => server.once('exit', resolve));
if (ownDataDir) rmSync(dataDir, { recursive: true, force: true });
const passed = serverErrors === 0 && problems.length === 0 && (!judgedRss || growth < 0.1);
console.log(passed ? 'soak: passed' : 'soak: FAILED');
process.exit(passed ? 0 : 1);
