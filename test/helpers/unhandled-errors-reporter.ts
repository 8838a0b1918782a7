import type { Reporter } from 'vitest/reporters';

/**
 * Repeats each unhandled error, shortly, after Vitest's summary. Vitest prints them above its
 * summary, and a CI log that keeps only its last lines then says that a run failed but not why:
 * with these lines last, the cause of a rare failure is read from the same tail.
 */
export default class UnhandledErrorsReporter implements Reporter {
  onFinished(_files: unknown, errors: readonly unknown[]): void {
    if (errors.length === 0) return;
    const lines = [`${errors.length} unhandled error(s), repeated from above:`];
    for (const error of errors) {
      const { name, message, stack } = (error ?? {}) as { name?: string; message?: string; stack?: string };
      lines.push(`- ${name ?? 'Error'}: ${message ?? String(error)}`);
      for (const frame of (stack ?? '').split('\n').slice(1, 7)) lines.push(`    ${frame.trim()}`);
    }
    process.stdout.write(`\n${lines.join('\n')}\n`);
  }
}
