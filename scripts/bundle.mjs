// Bundles the compiled service (dist/) into dist/bundle: the server and the command line, each
// with its own code, TypeBox and Kysely in a few files. Loaded as the ~1,100 small ES modules
// that tsc writes (683 of them TypeBox's, 262 Kysely's), they took Node 0.9-1.1 s to resolve and
// read at every start, most of a CLI command's time and of the suite's (436 process starts);
// bundled, a start takes about a third of that. The other packages stay as installed: they
// are CommonJS, which Node loads quickly, and some find files of their own beside their code.
import { copyFileSync, rmSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';

const root = new URL('..', import.meta.url);
const BUNDLED_PACKAGES = new Set(['typebox', 'kysely']);
const packageOf = (specifier) => specifier.split('/').slice(0, specifier.startsWith('@') ? 2 : 1).join('/');

// Chunks have hashed names: the last build's would stay beside this one's.
rmSync(new URL('dist/bundle', root), { recursive: true, force: true });

await build({
  // A path, not the URL's pathname: that keeps a space in the folder's name as %20.
  absWorkingDir: fileURLToPath(root),
  entryPoints: { server: 'dist/server.js', cli: 'dist/cli/main.js' },
  outdir: 'dist/bundle',
  bundle: true,
  // Modules loaded on demand (the HTTP service from the CLI, the PostgreSQL driver) stay chunks
  // of their own, loaded on demand.
  splitting: true,
  format: 'esm',
  platform: 'node',
  target: 'node20',
  sourcemap: true,
  logLevel: 'warning',
  plugins: [
    {
      name: 'installed-packages-stay-external',
      setup(builder) {
        builder.onResolve({ filter: /^[^./]/ }, ({ path }) =>
          BUNDLED_PACKAGES.has(packageOf(path)) ? undefined : { path, external: true },
        );
      },
    },
  ],
});
// The password-hashing threads load their worker from beside the code that starts them.
copyFileSync(new URL('dist/lib/passwords/hash-worker.mjs', root), new URL('dist/bundle/hash-worker.mjs', root));
