#!/usr/bin/env node
// Regenerates src/client/api-types.ts from the API's OpenAPI document (openapi-typescript).
//   npm run client:generate          write the file
//   npm run client:generate -- --check   fail (exit 1) when the committed file has drifted
// Needs the built project (the document comes from `groupadmin openapi`).
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import openapiTS, { astToString, COMMENT_HEADER } from 'openapi-typescript';

const root = fileURLToPath(new URL('..', import.meta.url));
const target = join(root, 'src/client/api-types.ts');
const dataDir = mkdtempSync(join(tmpdir(), 'groupadmin-openapi-'));
try {
  // A fixed environment, so the document (and the types) depend on the code alone.
  const result = spawnSync(process.execPath, [join(root, 'bin/groupadmin.js'), 'openapi'], {
    env: { PATH: process.env.PATH, DATA_DIR: dataDir, LOG_LEVEL: 'silent' },
    encoding: 'utf8',
    // The document is well over spawnSync's default 1 MiB of output.
    maxBuffer: 64 * 1024 * 1024,
  });
  if (result.status !== 0) throw new Error(`groupadmin openapi failed: ${result.stderr}`);
  const document = JSON.parse(result.stdout);
  const source = `${COMMENT_HEADER}${astToString(await openapiTS(document))}`;
  if (process.argv.includes('--check')) {
    const committed = readFileSync(target, 'utf8');
    if (committed !== source) {
      console.error('src/client/api-types.ts is out of date with the API: run `npm run client:generate` and commit it');
      process.exit(1);
    }
    console.log('src/client/api-types.ts matches the API');
  } else {
    writeFileSync(target, source);
    console.log(`wrote ${target}`);
  }
} finally {
  rmSync(dataDir, { recursive: true, force: true });
}
