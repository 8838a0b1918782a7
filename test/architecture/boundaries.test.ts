import { readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

// The house rules of docs/architecture.md, checked on every run so that they stay true: who may
// import whom among the folders of src/. Each failure names the file and the import.

const SRC = resolve(dirname(fileURLToPath(import.meta.url)), '../../src');

interface Import {
  file: string;
  target: string;
  /** `import type` only: gone at run time. */
  typeOnly: boolean;
}

function sourceFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    return statSync(path).isDirectory() ? sourceFiles(path) : /\.(ts|mts)$/.test(name) && !name.endsWith('.d.ts') ? [path] : [];
  });
}

const IMPORT = /^(?:import|export)\s+(type\s+)?(?:[^'";]*?\s+from\s+)?'(\.{1,2}\/[^']+)'/gm;

function importsOf(file: string): Import[] {
  const text = readFileSync(file, 'utf8');
  return [...text.matchAll(IMPORT)].map((match) => ({
    file: relative(SRC, file),
    target: relative(SRC, resolve(dirname(file), match[2]!)).replace(/\.js$/, '.ts'),
    typeOnly: match[1] !== undefined,
  }));
}

const imports = sourceFiles(SRC).flatMap(importsOf);

/** `modules/<name>` for a module's files, else the top folder (`http`, `db`, ...) or file (`app`). */
function unitOf(path: string): string {
  const parts = path.split(sep);
  if (parts[0] === 'modules') return `modules/${parts[1]}`;
  return parts.length > 1 ? parts[0]! : parts[0]!.replace(/\.ts$/, '');
}

const show = (found: Import[]) => found.map((i) => `${i.file} imports ${i.target}`);

describe('module boundaries', () => {
  it('finds the source and its imports', () => {
    // Guards the checks below against passing because they read nothing.
    expect(imports.length).toBeGreaterThan(500);
    expect(imports.some((i) => unitOf(i.file) === 'modules/people' && unitOf(i.target) === 'modules/permissions')).toBe(true);
  });

  it("one owner per table: no file outside a module imports that module's queries", () => {
    const reaching = imports.filter((i) => /^modules\/[^/]+\/queries\.ts$/.test(i.target) && unitOf(i.file) !== unitOf(i.target));
    expect(show(reaching)).toEqual([]);
  });

  it('the shared layers below the modules import no module', () => {
    const below = new Set(['config', 'errors', 'db', 'http', 'lib', 'recording']);
    const upward = imports.filter((i) => below.has(unitOf(i.file)) && unitOf(i.target).startsWith('modules/'));
    expect(show(upward)).toEqual([]);
  });

  it('no module imports what sits above the modules (history, the app, the server, the command line)', () => {
    const above = new Set(['history', 'app', 'server', 'cli']);
    const downward = imports.filter((i) => unitOf(i.file).startsWith('modules/') && above.has(unitOf(i.target)));
    expect(show(downward)).toEqual([]);
  });

  it('only the two pairs of modules that docs/architecture.md explains import each other', () => {
    const edges = new Set(imports.filter((i) => unitOf(i.file) !== unitOf(i.target)).map((i) => `${unitOf(i.file)} -> ${unitOf(i.target)}`));
    const pairs = [...edges]
      .map((edge) => edge.split(' -> ') as [string, string])
      .filter(([from, to]) => from.startsWith('modules/') && to.startsWith('modules/') && from < to && edges.has(`${to} -> ${from}`))
      .map(([from, to]) => `${from} <-> ${to}`)
      .sort();
    expect(pairs).toEqual(['modules/events <-> modules/groups', 'modules/events <-> modules/participations']);
  });

  it('no two files import each other, directly or round a loop, at run time', () => {
    const graph = new Map<string, string[]>();
    for (const i of imports) if (!i.typeOnly) graph.set(i.file, [...(graph.get(i.file) ?? []), i.target]);
    const loops: string[] = [];
    const state = new Map<string, 'open' | 'done'>();
    const visit = (file: string, path: string[]) => {
      if (state.get(file) === 'done') return;
      if (state.get(file) === 'open') {
        loops.push([...path.slice(path.indexOf(file)), file].join(' -> '));
        return;
      }
      state.set(file, 'open');
      for (const next of graph.get(file) ?? []) visit(next, [...path, file]);
      state.set(file, 'done');
    };
    for (const file of graph.keys()) visit(file, []);
    expect(loops).toEqual([]);
  });

  it('TenantDb is declared once, in db/types.ts', () => {
    const declaring = sourceFiles(SRC).filter((file) => /^\s*(export\s+)?type TenantDb\s*=/m.test(readFileSync(file, 'utf8')));
    expect(declaring.map((file) => relative(SRC, file))).toEqual([join('db', 'types.ts')]);
  });
});
