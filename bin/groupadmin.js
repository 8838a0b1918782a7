#!/usr/bin/env node
// The command line runs the compiled service; `npm install` builds it (the prepare script).
import { existsSync } from 'node:fs';

const entry = new URL('../dist/bundle/cli.js', import.meta.url);
if (!existsSync(entry)) {
  process.stderr.write('groupadmin: not built yet; run `npm run build` first\n');
  process.exit(1);
}
const { main } = await import(entry.href);
const status = await main(process.argv.slice(2));
// `serve` keeps running; every other command ends here, once what it printed has left: a pipe
// takes large output (the OpenAPI document) in pieces, and exiting earlier would cut it short.
const exitWhenFlushed = () => process.stdout.write('', () => process.stderr.write('', () => process.exit(status)));
if (process.argv[2] !== 'serve') exitWhenFlushed();
else if (status !== 0) exitWhenFlushed();
