import { spawn, type ChildProcess } from 'node:child_process';
import { request, type Agent } from 'node:http';
import { createServer } from 'node:net';
import { checkContract } from './contract.js';
import { fileURLToPath } from 'node:url';

export const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const CLI = fileURLToPath(new URL('../../bin/groupadmin.js', import.meta.url));
const SERVER = fileURLToPath(new URL('../../dist/bundle/server.js', import.meta.url));

export interface CliResult {
  status: number | null;
  stdout: string;
  stderr: string;
}

/**
 * Runs a program to its end without blocking the event loop. Vitest's worker answers its runner
 * on that loop, and gives up on an answer it has not read for 60 s ("Timeout calling
 * onTaskUpdate"): a synchronous child process that long (the benchmark's smoke run on a busy
 * machine) failed a whole CI run whose every test passed.
 */
export function runProcess(
  command: string,
  args: string[],
  options: { env: Record<string, string>; input?: string; timeoutMs: number },
): Promise<CliResult> {
  return new Promise((resolve, reject) => {
    // A group of its own, so that a timeout stops the servers a script started as well: they
    // hold the output pipes, and waiting for those to close would wait for them.
    const child = spawn(command, args, { cwd: ROOT, env: options.env, stdio: ['pipe', 'pipe', 'pipe'], detached: true });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      try {
        process.kill(-child.pid!, 'SIGKILL');
      } catch {
        // The group is gone already.
      }
      // What was read so far is the answer; nothing more is waited for.
      child.stdout.destroy();
      child.stderr.destroy();
      resolve({ status: null, stdout, stderr: `${stderr}\n(${[command, ...args].join(' ')}: stopped after ${options.timeoutMs} ms)` });
    }, options.timeoutMs);
    child.on('error', (error) => {
      clearTimeout(timer);
      reject(error);
    });
    child.on('close', (status) => {
      clearTimeout(timer);
      if (!timedOut) resolve({ status, stdout, stderr });
    });
    // A program that exits before reading its input closes the pipe: not this helper's failure.
    child.stdin.on('error', () => {});
    child.stdin.end(options.input ?? '');
  });
}

/** Runs the built command line, as a user would with `npx groupadmin ...`. */
export function runCli(args: string[], env: Record<string, string>, input?: string): Promise<CliResult> {
  return runProcess(process.execPath, [CLI, ...args], {
    env: { PATH: process.env.PATH ?? '', LOG_LEVEL: 'silent', ...env },
    input,
    timeoutMs: 30_000,
  });
}

/** Creates a tenant and a user in it with the real CLI (e-mail <username>@example.com, "Alice Smith"). */
export async function createTenantAndUser(env: Record<string, string>, tenant = 'acme', username = 'alice', password = 'a long password'): Promise<void> {
  const steps: [string[], string?][] = [
    [['tenant', 'create', tenant]],
    [['user', 'create', tenant, username, '--email', `${username}@example.com`, '--firstname', 'Alice', '--lastname', 'Smith', '--password-stdin'], `${password}\n`],
  ];
  for (const [args, input] of steps) {
    const result = await runCli(args, env, input);
    if (result.status !== 0) throw new Error(`groupadmin ${args.join(' ')}: ${result.stderr}`);
  }
}

export interface ServerProcess {
  child: ChildProcess;
  port: number;
  /** Everything the process printed so far. */
  output(): string;
  stop(signal?: NodeJS.Signals): Promise<number | null>;
}

/** Starts the built production server (`node dist/bundle/server.js`, as `npm start` does) on a free port. */
export async function startServer(env: Record<string, string>, scheme: 'http' | 'https' = 'http'): Promise<ServerProcess> {
  const child = spawn(process.execPath, [SERVER], {
    cwd: ROOT,
    env: { PATH: process.env.PATH ?? '', PORT: '0', HOST: '127.0.0.1', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout!.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr!.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const port = await new Promise<number>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`server did not start:\n${output}`)), 20_000);
    const check = () => {
      const match = new RegExp(`Server listening at ${scheme}://127\\.0\\.0\\.1:(\\d+)`).exec(output);
      if (match) {
        clearTimeout(timer);
        resolve(Number(match[1]));
      }
    };
    child.stdout!.on('data', check);
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`server exited with ${code}:\n${output}`));
    });
  });
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  return {
    child,
    port,
    output: () => output,
    stop: async (signal = 'SIGTERM') => {
      if (child.exitCode === null) child.kill(signal);
      return exited;
    },
  };
}

export interface HttpResult {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: string;
}

const documents = new Map<number, Promise<Record<string, unknown>>>();

/** The OpenAPI document a running server serves, fetched once per port. */
function documentOf(port: number): Promise<Record<string, unknown>> {
  let document = documents.get(port);
  if (!document) {
    document = rawHttp(port, { path: '/api/openapi.json' }).then((answer) => JSON.parse(answer.body) as Record<string, unknown>);
    documents.set(port, document);
  }
  return document;
}

interface HttpOptions {
  method?: string;
  path: string;
  headers?: Record<string, string>;
  body?: string;
  agent?: Agent;
  /** Called once the whole request has been handed to the operating system. */
  onSent?: () => void;
}

/**
 * A real HTTP request; node:http lets the test choose the Host header (fetch does not). Every
 * answer under /api is checked against the OpenAPI document the server itself serves.
 */
export async function http(
  port: number,
  options: HttpOptions,
): Promise<HttpResult> {
  const checked = options.path.startsWith('/api/') && !options.path.startsWith('/api/openapi.json');
  // Asked for with the request, not after its answer: by then a server told to stop has closed
  // its listener, and the document could not be fetched.
  const document = checked ? documentOf(port) : undefined;
  const answer = await rawHttp(port, options);
  if (document) checkContract(await document, options.method ?? 'GET', options.path, { ...answer, statusCode: answer.status });
  return answer;
}

function rawHttp(port: number, options: HttpOptions): Promise<HttpResult> {
  return new Promise((resolve, reject) => {
    const req = request(
      {
        host: '127.0.0.1',
        port,
        method: options.method ?? 'GET',
        path: options.path,
        headers: options.headers,
        ...(options.agent ? { agent: options.agent } : {}),
      },
      (res) => {
        let body = '';
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => (body += chunk));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body }));
      },
    );
    req.on('error', reject);
    if (options.onSent) req.on('finish', options.onSent);
    if (options.body !== undefined) req.write(options.body);
    req.end();
  });
}

/** A port nobody listens on right now. */
export const freePort = () =>
  new Promise<number>((resolve) => {
    const server = createServer().listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
