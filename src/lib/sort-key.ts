/**
 * The sort key of a name: lowercased, decomposed with NFKD, combining marks
 * removed, so "Émile" sorts with "emile". Stored with the row and indexed, so every storage orders
 * alike and a cursor means the same everywhere (never the database's collation).
 */
export const sortKey = (text: string): string => text.toLowerCase().normalize('NFKD').replace(/\p{M}/gu, '');

/** Code-point order, as SQLite (memcmp of UTF-8) and PostgreSQL (`collate "C"`) compare text. */
export function compareText(a: string, b: string): number {
  if (a === b) return 0;
  const left = Buffer.from(a);
  const right = Buffer.from(b);
  return Buffer.compare(left, right);
}
