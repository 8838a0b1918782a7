import { LRUCache } from 'lru-cache';
import { findTenantBySlug } from './queries.js';
import type { Storage } from '../../db/storage.js';

/**
 * What the directory keeps of a tenant: that it exists. Its settings (name, time zone, language)
 * change while the service runs (PATCH /tenant) and are read where they matter, never from here.
 */
export interface KnownTenant {
  slug: string;
}

export interface TenantDirectory {
  /** The tenant with this slug, or null; answers from memory for most requests. */
  find(slug: string): Promise<KnownTenant | null>;
  /** What memory knows without asking the registry: the tenant, null (known missing), or undefined. */
  peek(slug: string): KnownTenant | null | undefined;
}

export interface TenantDirectoryOptions {
  /** Tenants are never removed while running, so a found one can be kept a while. */
  foundTtlMs?: number;
  /** Short, so a tenant created by another process is seen within a second. */
  missingTtlMs?: number;
  /** Bounds memory however many made-up hosts a client sends. */
  maxEntries?: number;
}

export function createTenantDirectory(storage: Storage, options: TenantDirectoryOptions = {}): TenantDirectory {
  const { foundTtlMs = 60_000, missingTtlMs = 1_000, maxEntries = 10_000 } = options;
  // Concurrent lookups of one slug share one query (lru-cache's fetch deduplicates them).
  const cache = new LRUCache<string, { tenant: KnownTenant | null }>({
    max: maxEntries,
    ttl: foundTtlMs,
    // A flood of made-up hosts can evict an entry while it is being read; lru-cache would then
    // reject the read ('evicted') and the request would fail. Finish it and answer anyway.
    ignoreFetchAbort: true,
    fetchMethod: async (slug, _stale, { options: entryOptions }) => {
      const row = await findTenantBySlug(storage.registry, slug);
      if (!row) entryOptions.ttl = missingTtlMs;
      return { tenant: row ? { slug: row.slug } : null };
    },
  });
  return {
    find: async (slug) => (await cache.fetch(slug))?.tenant ?? null,
    peek: (slug) => cache.get(slug)?.tenant,
  };
}
