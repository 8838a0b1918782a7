import type { Command } from 'commander';
import { createTenant, listAllTenants, setTenantLocale, setTenantTimezone } from '../modules/tenants/rules.js';
import { withStorage } from './context.js';

export function registerTenantCommands(program: Command): void {
  const tenant = program.command('tenant').description('create and list tenants, set their time zone and language');

  tenant
    .command('create <slug>')
    .description('create a tenant and its database')
    .option('--name <text>', 'display name (defaults to the slug)')
    .option('--timezone <zone>', 'time zone (IANA name, e.g. Europe/Zurich) in which its days begin and end (default UTC)')
    .option('--locale <language>', 'language of its mails: de, en or fr (default en)')
    .action((slug: string, options: { name?: string; timezone?: string; locale?: string }) =>
      withStorage(async (storage) => {
        const row = await createTenant(storage, slug, options.name, options.timezone, options.locale);
        process.stdout.write(`created tenant "${row.slug}" (${row.name}), time zone ${row.timezone}, language ${row.locale}\n`);
      }),
    );

  tenant
    .command('timezone <slug> <zone>')
    .description('set the time zone (IANA name, e.g. Europe/Zurich) in which the tenant\'s days begin and end')
    .action((slug: string, zone: string) =>
      withStorage(async (storage) => {
        const row = await setTenantTimezone(storage, slug, zone);
        process.stdout.write(`time zone of "${row.slug}" set to ${row.timezone}\n`);
      }),
    );

  tenant
    .command('locale <slug> <language>')
    .description('set the language of the tenant\'s mails: de, en or fr')
    .action((slug: string, language: string) =>
      withStorage(async (storage) => {
        const row = await setTenantLocale(storage, slug, language);
        process.stdout.write(`language of "${row.slug}" set to ${row.locale}\n`);
      }),
    );

  tenant
    .command('list')
    .description('list tenants, one per line: slug, tab, name')
    .action(() =>
      withStorage(async (storage) => {
        for (const row of await listAllTenants(storage)) process.stdout.write(`${row.slug}\t${row.name}\n`);
      }),
    );
}
