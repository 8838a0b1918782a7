import { InvalidArgumentError, type Command } from 'commander';
import { bringUp, putDown } from '../modules/maintenance/rules.js';
import { withStorage } from './context.js';

const seconds = (value: string): number => {
  if (!/^\d{1,7}$/.test(value)) throw new InvalidArgumentError('must be a whole number of seconds');
  return Number(value);
};

export function registerMaintenanceCommands(program: Command): void {
  program
    .command('down')
    .description('maintenance mode: every instance answers /api with 503 within a second; /health stays 200')
    .option('--retry <seconds>', 'tell clients to retry after this many seconds (Retry-After)', seconds)
    .option('--message <text>', 'the message of the 503 answer (default "Service Unavailable")')
    .action((options: { retry?: number; message?: string }) =>
      withStorage(async (storage) => {
        await putDown(storage, { retryAfterSeconds: options.retry ?? null, message: options.message ?? null });
        process.stdout.write('maintenance mode on: /api answers 503\n');
      }),
    );

  program
    .command('up')
    .description('leave maintenance mode')
    .action(() =>
      withStorage(async (storage) => {
        await bringUp(storage);
        process.stdout.write('maintenance mode off\n');
      }),
    );
}
