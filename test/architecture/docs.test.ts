import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

// The docs stand alone: a maintainer with only this repository finds every page a link names, and
// nothing sends them to a specification file the repository does not hold.

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../..');

function filesUnder(dir: string, extensions: RegExp): string[] {
  return readdirSync(dir).flatMap((name) => {
    if (name === 'node_modules' || name === 'dist' || name.startsWith('.')) return [];
    const path = join(dir, name);
    return statSync(path).isDirectory() ? filesUnder(path, extensions) : extensions.test(name) ? [path] : [];
  });
}

const markdown = [join(ROOT, 'README.md'), ...filesUnder(join(ROOT, 'docs'), /\.md$/)];
const code = ['src', 'test', 'web/src', 'bench', 'scripts', 'examples'].flatMap((dir) => filesUnder(join(ROOT, dir), /\.(ts|tsx|mjs|js|json|md)$/));

describe('the docs', () => {
  it('are there', () => {
    expect(markdown.length).toBeGreaterThan(30);
    expect(code.length).toBeGreaterThan(200);
  });

  it('keep the README short', () => {
    expect(readFileSync(join(ROOT, 'README.md'), 'utf8').split('\n').length).toBeLessThanOrEqual(250);
  });

  it('link only to files that exist', () => {
    const broken: string[] = [];
    for (const file of markdown) {
      // Code (fenced blocks and `spans`) is not prose: a regex there is no link.
      const text = readFileSync(file, 'utf8').replace(/```[\s\S]*?```/g, '').replace(/`[^`\n]*`/g, '');
      for (const [, target] of text.matchAll(/\]\(([^)\s]+)\)/g)) {
        if (/^(https?:|mailto:|#)/.test(target!)) continue;
        const path = resolve(dirname(file), decodeURI(target!.split('#')[0]!));
        if (!existsSync(path)) broken.push(`${relative(ROOT, file)} -> ${target}`);
      }
    }
    expect(broken).toEqual([]);
  });

  it('never refer to a specification file the repository does not contain', () => {
    // The specification's file names, as they were cited ("groups.md section 2").
    // A link names the file with its path (docs/api/mail.md), which must then exist beside the citing file.
    const cited = /[\w./-]*?\b(api|decisions|groups|events|integrations|data|webapp|mail|calendars)\.md\b/g;
    const citing = [...markdown, ...code]
      .filter((file) => !file.endsWith('docs.test.ts'))
      .flatMap((file) =>
        readFileSync(file, 'utf8')
          .split('\n')
          .flatMap((line, index) =>
            [...line.matchAll(cited)].some((match) => !existsSync(join(dirname(file), match[0]))) ? [`${relative(ROOT, file)}:${index + 1}: ${line.trim()}`] : [],
          ),
      );
    expect(citing).toEqual([]);
  });
});
