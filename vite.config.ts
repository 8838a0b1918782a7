import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vite';

// The web app (web/) builds into dist/web, which the server serves at `/`. Hashed file names let
// the server cache assets for a year; index.html is never cached.
export default defineConfig({
  root: fileURLToPath(new URL('./web', import.meta.url)),
  base: '/',
  resolve: { alias: { 'groupadmin/client': fileURLToPath(new URL('./src/client/index.ts', import.meta.url)) } },
  oxc: { jsx: { runtime: 'automatic', importSource: 'preact' } },
  build: {
    outDir: fileURLToPath(new URL('./dist/web', import.meta.url)),
    emptyOutDir: true,
    // No inline script or style anywhere: the content policy allows 'self' only.
    assetsInlineLimit: 0,
    modulePreload: { polyfill: false },
    sourcemap: false,
  },
});
