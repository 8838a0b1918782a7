import type { Storage } from '../../db/storage.js';
import { deleteSetting, readSetting, writeSetting } from '../../db/settings.js';
import { toDbTimestamp } from '../../lib/time.js';

const KEY = 'maintenance';

export interface MaintenanceState {
  /** Seconds a client should wait (Retry-After), when the operator said. */
  retryAfterSeconds: number | null;
  /** Shown instead of "Service Unavailable", when the operator gave one. */
  message: string | null;
}

/** Puts every instance into maintenance mode: /api answers 503 until bringUp(). */
export async function putDown(storage: Storage, state: MaintenanceState): Promise<void> {
  await writeSetting(storage.registry, KEY, JSON.stringify(state), toDbTimestamp(new Date()));
}

export async function bringUp(storage: Storage): Promise<void> {
  await deleteSetting(storage.registry, KEY);
}

export async function readMaintenance(storage: Storage): Promise<MaintenanceState | null> {
  const value = await readSetting(storage.registry, KEY);
  if (value === null) return null;
  try {
    const parsed = JSON.parse(value) as Partial<MaintenanceState>;
    return { retryAfterSeconds: parsed.retryAfterSeconds ?? null, message: parsed.message ?? null };
  } catch {
    return { retryAfterSeconds: null, message: null };
  }
}

export interface MaintenanceWatcher {
  /** The state as last read; answered from memory on every request. */
  current(): MaintenanceState | null;
  stop(): void;
}

/**
 * Reads the maintenance flag from the registry every `intervalMs`, so each instance sees a change
 * within that time without a query per request. A failed read keeps the last known state.
 */
export async function watchMaintenance(
  storage: Storage,
  options: { intervalMs: number; onError: (err: unknown) => void },
): Promise<MaintenanceWatcher> {
  let state: MaintenanceState | null = null;
  let failing = false;
  const refresh = async () => {
    try {
      state = await readMaintenance(storage);
      failing = false;
    } catch (err) {
      if (!failing) options.onError(err);
      failing = true;
    }
  };
  await refresh();
  const timer = setInterval(() => void refresh(), options.intervalMs);
  timer.unref();
  return { current: () => state, stop: () => clearInterval(timer) };
}
