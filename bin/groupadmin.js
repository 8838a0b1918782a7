#!/usr/bin/env -S node --max-semi-space-size=4
// The command line runs the compiled service; `npm install` builds it (the prepare script).
// `serve` gets the young-generation limit that `npm start` gives the service (see README, Performance).
import { existsSync } from 'node:fs';

const entry = new URL('../dist/cli/main.js', import.meta.url);
if (!existsSync(entry)) {
  process.stderr.write('groupadmin: not built yet; run `npm run build` first\n');
  process.exit(1);
}
const { main } = await import(entry.href);
const status = await main(process.argv.slice(2));
// `serve` keeps running; every other command ends here.
if (process.argv[2] !== 'serve') process.exit(status);
else if (status !== 0) process.exit(status);
