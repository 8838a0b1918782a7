import { afterEach, describe, expect, it, vi } from 'vitest';
import { de } from '../../web/src/i18n/de.js';
import { en, type Words } from '../../web/src/i18n/en.js';
import { fr } from '../../web/src/i18n/fr.js';
import { browserLanguage, formatDate, LANGUAGES, rememberedLanguage, rememberLanguage, roleTypeLabel, wordsFor, type Language } from '../../web/src/i18n/index.js';
import { buildTestApp } from '../helpers/app.js';

/** Words that German or French write exactly as English does; any other equal value is an untranslated one. */
const SAME_IN_BOTH = new Set(['groupadmin', 'Name', 'E-Mail', 'OK']);

/** What a catalogue shows for each key: a function value with sample arguments (both branches of `places`). */
function shown(words: Words): Record<string, string[]> {
  return Object.fromEntries(
    Object.entries(words).map(([key, value]) => [
      key,
      typeof value === 'function' ? [[7, 12], [7, null]].map((args) => (value as (...args: unknown[]) => string)(...args)) : [value],
    ]),
  );
}

const translations = { de, fr } satisfies Partial<Record<Language, Words>>;

describe('the web app: catalogues', () => {
  it.each(Object.entries(translations))('%s has exactly the English keys, with values of the same kind', (_, words) => {
    expect(Object.keys(words).sort()).toEqual(Object.keys(en).sort());
    for (const key of Object.keys(en) as (keyof Words)[]) expect(typeof words[key], key).toBe(typeof en[key]);
  });

  it.each(Object.entries(translations))('%s translates every value (only a few words are the same as in English)', (_, words) => {
    const english = shown(en);
    const untranslated = Object.entries(shown(words)).flatMap(([key, values]) =>
      values.filter((value, index) => value === english[key]![index] && !SAME_IN_BOTH.has(value)).map((value) => `${key}: ${value}`),
    );
    expect(untranslated).toEqual([]);
    for (const [key, values] of Object.entries(shown(words))) for (const value of values) expect(value.trim(), key).not.toBe('');
  });

  it('offers German, English and French, each with its own catalogue', () => {
    expect([...LANGUAGES].sort()).toEqual(['de', 'en', 'fr']);
    expect(new Set(LANGUAGES.map(wordsFor)).size).toBe(3);
    expect(wordsFor('fr')).toBe(fr);
  });

  it('takes the browser\'s first language it speaks, else English', () => {
    expect(browserLanguage(['fr-CH'])).toBe('fr');
    expect(browserLanguage(['fr-BE', 'de'])).toBe('fr');
    expect(browserLanguage(['de-AT', 'en'])).toBe('de');
    expect(browserLanguage(['it-CH', 'FR-fr', 'de'])).toBe('fr');
    expect(browserLanguage(['EN-gb'])).toBe('en');
    expect(browserLanguage(['es-ES', 'rm'])).toBe('en');
    expect(browserLanguage([])).toBe('en');
  });

  it('writes dates in the language\'s own format', () => {
    const written = Object.fromEntries(LANGUAGES.map((language) => [language, formatDate('2026-07-01T12:00:00Z', language, 'Europe/Zurich')]));
    expect(written.de).toMatch(/^0?1\.0?7\.2026$/);
    expect(written.en).toMatch(/^1 Jul 2026$/);
    expect(written.fr).toMatch(/^1(er)? juil\. 2026$/);
  });
});

describe('the web app: French grammar in the catalogue', () => {
  it('elides "de" before a vowel and counts 0 and 1 in the singular', () => {
    expect(fr.wardsOf('Anna')).toBe('Enfants d’Anna');
    expect(fr.wardsOf('Mia')).toBe('Enfants de Mia');
    expect(fr.participantsOf('Été au lac')).toBe('les participant·e·s d’Été au lac');
    expect(fr.charactersUsed('1', '20 000')).toBe('1 caractère sur 20 000');
    expect(fr.charactersUsed('0', '20 000')).toBe('0 caractère sur 20 000');
    expect(fr.charactersUsed('2', '20 000')).toBe('2 caractères sur 20 000');
  });
});

describe('the web app: the language chosen is remembered', () => {
  afterEach(() => vi.unstubAllGlobals());

  const memoryStorage = () => {
    const items = new Map<string, string>();
    return { items, getItem: (key: string) => items.get(key) ?? null, setItem: (key: string, value: string) => void items.set(key, value) };
  };

  it('keeps only the language, and reads it back', () => {
    const storage = memoryStorage();
    vi.stubGlobal('localStorage', storage);
    expect(rememberedLanguage()).toBeNull();
    rememberLanguage('fr');
    expect([...storage.items.values()]).toEqual(['fr']);
    expect(rememberedLanguage()).toBe('fr');
  });

  it('ignores what it does not know, and storage that refuses', () => {
    const storage = memoryStorage();
    vi.stubGlobal('localStorage', storage);
    rememberLanguage('de');
    const [key] = storage.items.keys();
    storage.items.set(key!, 'tlh');
    expect(rememberedLanguage()).toBeNull();
    vi.stubGlobal('localStorage', { getItem: () => { throw new Error('denied'); }, setItem: () => { throw new Error('denied'); } });
    expect(() => rememberLanguage('de')).not.toThrow();
    expect(rememberedLanguage()).toBeNull();
  });
});

describe('the web app: the default role types in the reader\'s language', () => {
  it('translates the labels a new tenant starts with, and shows any other label as stored', async () => {
    const test = await buildTestApp();
    try {
      await test.addTenant('scouts');
      const defaults = await test.storage.tenantDb('scouts').selectFrom('role_types').select(['key', 'label']).execute();
      expect(defaults.length).toBeGreaterThan(0);
      for (const role of defaults) {
        expect(roleTypeLabel(role, 'en')).toBe(role.label);
        for (const language of ['de', 'fr'] as const) {
          expect(roleTypeLabel(role, language), `${role.key} in ${language}`).not.toBe(role.label);
        }
      }
      // Four different words in each language: no two defaults read alike.
      for (const language of LANGUAGES) expect(new Set(defaults.map((role) => roleTypeLabel(role, language))).size).toBe(defaults.length);
      const [first] = defaults;
      expect(roleTypeLabel({ key: first!.key, label: 'Patrol leader' }, 'de')).toBe('Patrol leader');
      expect(roleTypeLabel({ key: 'cook', label: 'Cook' }, 'fr')).toBe('Cook');
    } finally {
      await test.close();
    }
  });
});
