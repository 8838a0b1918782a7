import { LRUCache } from 'lru-cache';
import type { CacheChange } from '../../db/invalidation/queries.js';
import type { TenantDb } from '../../db/types.js';
import { compileSerializer } from '../../http/serializer.js';
import { TOKEN_ROW_MAX_AGE_MS } from '../tokens/verifier.js';
import { findPeopleByIds, sortNamesOf, type PersonRef, type SortNames } from './queries.js';
import { PersonSchema, toApiPerson } from './schemas.js';

/** 24 million characters of JSON (24 MB, up to twice that where names need two bytes a character): the 29,568 people of the benchmark's largest region take about 15 million with their names. */
const KEPT_CHARS = 24_000_000;
/** What an entry costs beside its text and names (key, entry, the cache's own node), counted against KEPT_CHARS. */
const ENTRY_OVERHEAD = 120;

const ID_SPAN = 2 ** 32;
const MAX_TENANT_NUMBER = 2 ** 21;

/** A person's JSON as kept, with the names their place in the name order is made of. */
export interface PersonJson {
  json: string;
  names: SortNames;
}

interface Kept extends PersonJson {
  version: number;
  /**
   * Compared too: an id and version can name another person after a database is restored from an
   * older backup under a running service, or an erased last id is given again (PostgreSQL, after
   * the Laravel import sets the sequences).
   */
  updatedAt: string;
}

/** What an entry counts against KEPT_CHARS: its text, its four names (strings of their own) and its overhead. */
const sizeOf = ({ json, names }: Kept) => json.length + names[0].length + names[1].length + names[2].length + names[3].length + ENTRY_OVERHEAD;

const isOf = (entry: Kept, ref: PersonRef) => entry.version === Number(ref.version) && entry.updatedAt === ref.updated_at;

export interface PersonJsonMemoryOptions {
  /**
   * Whether kept JSON may be used now: true while the change feed is being read (as for
   * remembered tokens), which brings every change made by anyone within a second.
   */
  isCurrent: () => boolean;
  maxChars?: number;
}

export type PersonJsonMemory = ReturnType<typeof createPersonJsonMemory>;

const writePerson = compileSerializer(PersonSchema);

/**
 * A person's JSON as every answer writes it (PersonSchema), as one flat string. The serializer
 * builds it piece by piece, and V8 keeps such a string as a tree of its pieces until something
 * reads it whole: joined into every page as a tree, 51 of them cost about 110 us a page (a fifth of
 * it); made into a flat copy once, when it is kept, under 10.
 */
export const personJson = (person: unknown): string => Buffer.from(writePerson(person), 'utf8').toString('utf8');

/**
 * People's JSON, kept by id and version: a page of people reads each person's id and version
 * (`PersonRef`) and takes the JSON written for that version, so only people changed since they
 * were last listed are read whole and written again. Reading 23 columns of 51 rows and writing
 * them as JSON was more than half of a page's CPU time (docs/benchmarks/design.md).
 *
 * Fresh by construction, twice over:
 * - Every change through the service moves the row's version (the ETag), which the page reads in
 *   its own query: kept JSON of another version is never used.
 * - Every other update or deletion of a person's row is announced (the triggers of
 *   `cache_changes`): a process of the service forgets at once what it changed, and what others
 *   changed when it reads the feed, within a second. SQL typed behind the service's back is
 *   relayed by the tenant's next write that names users, and kept JSON lives 5 minutes at most,
 *   as remembered tokens do. While the feed cannot be read, nothing kept is used. A read that a
 *   change overtakes is not kept (the change may have come after the read).
 */
export function createPersonJsonMemory({ isCurrent, maxChars = KEPT_CHARS }: PersonJsonMemoryOptions) {
  // Kept no longer than remembered tokens: a change made with SQL behind the service's back is
  // announced in the tenant's outbox, but relayed only by the next write that names users.
  const kept = new LRUCache<number | string, Kept>({ maxSize: maxChars, sizeCalculation: sizeOf, ttl: TOKEN_ROW_MAX_AGE_MS });
  /** Per tenant, how many changes were heard: a read keeps what it found only if none came meanwhile. */
  const generations = new Map<string, number>();
  /** Moves when everything is forgotten. */
  let resets = 0;
  const generationOf = (tenant: string) => `${resets}.${generations.get(tenant) ?? 0}`;
  // A page looks up 51 people: a number is found faster than a string built for the lookup (on
  // 30,000 people kept, 200 against 400 ns), so the key is the tenant's number in this process
  // times 2^32 plus the id, exact below 2^53. Ids that are not whole numbers from 0 to 2^32 - 1
  // (id >>> 0 is the id only for those), and tenants beyond the 2^21st, use a string.
  const tenantNumbers = new Map<string, number>();
  const keyOf = (tenant: string) => {
    let number = tenantNumbers.get(tenant);
    if (number === undefined) tenantNumbers.set(tenant, (number = tenantNumbers.size));
    const numbered = number < MAX_TENANT_NUMBER;
    return (id: number): number | string => (numbered && id >>> 0 === id ? number * ID_SPAN + id : `${tenant}\u0000${id}`);
  };

  return {
    /**
     * The JSON (and names) of each person of `refs`, in their order; people whose kept JSON is of another
     * version (or none) are read whole, in one query. Undefined when one of them changed or went
     * between the page's query and that read: the caller then reads the page whole, in one
     * statement, so that a page never shows a person as they were after the page was chosen.
     */
    async jsonOf(tenant: string, db: TenantDb, refs: readonly PersonRef[]): Promise<PersonJson[] | undefined> {
      const usable = isCurrent();
      const page: (PersonJson | undefined)[] = new Array(refs.length);
      const missing: number[] = [];
      const key = keyOf(tenant);
      for (let i = 0; i < refs.length; i++) {
        const ref = refs[i]!;
        const entry = usable ? kept.get(key(Number(ref.id))) : undefined;
        if (entry !== undefined && isOf(entry, ref)) page[i] = entry;
        else missing.push(Number(ref.id));
      }
      if (missing.length === 0) return page as PersonJson[];
      const generation = generationOf(tenant);
      const rows = await findPeopleByIds(db, missing);
      const keep = generationOf(tenant) === generation;
      const read = new Map<number, Kept>();
      for (const row of rows) {
        const entry: Kept = { version: Number(row.version), updatedAt: row.updated_at, json: personJson(toApiPerson(row)), names: sortNamesOf(row) };
        read.set(Number(row.id), entry);
        if (keep) kept.set(key(Number(row.id)), entry);
      }
      for (let i = 0; i < refs.length; i++) {
        if (page[i] !== undefined) continue;
        const entry = read.get(Number(refs[i]!.id));
        if (entry === undefined || !isOf(entry, refs[i]!)) return undefined;
        page[i] = entry;
      }
      return page as PersonJson[];
    },
    /** A person's row changed or went (announced by the triggers; see the token verifier). */
    forget({ tenant, userId }: CacheChange): void {
      generations.set(tenant, (generations.get(tenant) ?? 0) + 1);
      if (userId !== null) kept.delete(keyOf(tenant)(userId));
    },
    /** The change feed could not be read for a while: anything may have changed. */
    forgetAll(): void {
      resets++;
      kept.clear();
    },
  };
}
