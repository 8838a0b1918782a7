/**
 * Reads a keyset-paged list to its end, one page at a time, so a long list never becomes one huge
 * query. `readPage(from, size)` answers up to size + 1 rows that follow `from` in the list's own order,
 * ascending or descending (the extra row says another page follows, as every list query here does);
 * `keyOf` gives the key the next page starts from.
 */
export async function readAllPages<Row>(
  readPage: (after: number | null, size: number) => Promise<Row[]>,
  keyOf: (row: Row) => number,
  size: number,
): Promise<Row[]> {
  const rows: Row[] = [];
  let after: number | null = null;
  for (;;) {
    const page = await readPage(after, size);
    rows.push(...page.slice(0, size));
    if (page.length <= size) return rows;
    after = keyOf(page[size - 1]!);
  }
}
