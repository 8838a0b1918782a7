/** The French words that drop their final "e" before a vowel: "de Mia" but "d’Anna". */
export type ElidingWord = 'de' | 'que' | 'le';

// A vowel (tested without its accents, so "Óscar" and "Åsa" elide too); "y" only before a
// consonant ("d’Yves", but "de Yann"). An "h" counts as mute, as it is in most first names ("d’Hélène").
const ELIDES_BEFORE = /^(?:[aeiouæœøh]|y[^aeiouyæœø])/i;

/**
 * `word` followed by `name` as French writes it: "de Mia", "d’Anna", "qu’Émile", "l’Atelier".
 * The apostrophe is the typographic one.
 */
export function elide(word: ElidingWord, name: string): string {
  return ELIDES_BEFORE.test(name.trimStart().normalize('NFD')) ? `${word.slice(0, -1)}’${name.trimStart()}` : `${word} ${name}`;
}
