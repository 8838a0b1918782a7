/**
 * Rows or values per statement for writes and look-ups of many at once (a CSV import): 500 rows of
 * the widest table bind about 11,000 parameters, far below PostgreSQL's 65,535 and SQLite's 32,766.
 */
export const ROWS_PER_STATEMENT = 500;

/** `items` in consecutive parts of at most ROWS_PER_STATEMENT, in order. */
export function statementChunks<T>(items: readonly T[]): T[][] {
  const parts: T[][] = [];
  for (let start = 0; start < items.length; start += ROWS_PER_STATEMENT) parts.push(items.slice(start, start + ROWS_PER_STATEMENT));
  return parts;
}

/**
 * The ids a multi-row INSERT's RETURNING gave, in the order its rows were listed. Neither dialect
 * promises an order for RETURNING, but both number the rows of one statement in the order listed
 * (SQLite's AUTOINCREMENT and a PostgreSQL sequence only ever count up, and another writer's
 * numbers fall between ours at most; the one setval, of `import laravel`, never moves a sequence
 * back), so the ids sorted ascending are the rows' ids in order.
 */
export function idsInListedOrder(returned: readonly { id: number | string | bigint }[]): number[] {
  return returned.map((row) => Number(row.id)).sort((a, b) => a - b);
}
