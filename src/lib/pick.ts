/**
 * The fields of `input` named in `keys` that it has (a JSON body may carry more than its schema
 * lists: validation checks the fields it knows and lets others through, as Laravel does). Writes
 * copy through this, so an unknown field never reaches a column.
 */
export function pickFields<T extends object, K extends keyof T>(input: T, keys: readonly K[]): Pick<T, K> {
  const picked = {} as Pick<T, K>;
  for (const key of keys) if (Object.hasOwn(input, key)) picked[key] = input[key];
  return picked;
}
