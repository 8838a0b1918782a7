import type { Command } from 'commander';
import { changeWebhook, createWebhook, removeWebhook, type WebhookContext, listWebhookRows } from '../modules/webhooks/rules.js';
import { NewWebhookSchema, toApiCreatedWebhook, toApiWebhook, type NewWebhook } from '../modules/webhooks/schemas.js';
import type { Storage } from '../db/storage.js';
import type { Config } from '../config.js';
import { openTenant, withStorage } from './context.js';
import { idOption, validated } from './groups.js';

const print = (value: unknown) => process.stdout.write(`${JSON.stringify(value, null, 2)}\n`);

async function contextFor(storage: Storage, config: Config, tenant: string): Promise<WebhookContext> {
  const { db } = await openTenant(storage, tenant);
  return { db, registry: storage.registry, tenant, allowPrivate: config.webhooksAllowPrivate };
}

/** Webhooks at the command line, through the rules of the routes. */
export function registerWebhookCommands(program: Command): void {
  const webhook = program.command('webhook').description('the webhooks of a tenant (signed deliveries of its change records)');

  webhook
    .command('list <tenant>')
    .description('list the webhooks as JSON (the GET /api/webhooks shape, without secrets)')
    .action((tenant: string) =>
      withStorage(async (storage, config) => {
        const { db } = await contextFor(storage, config, tenant);
        const rows = [];
        for (let after: number | null = null; ; ) {
          const page = await listWebhookRows(db, after, 200);
          rows.push(...page.slice(0, 200));
          if (page.length <= 200) break;
          after = Number(page[199]!.id);
        }
        print(rows.map(toApiWebhook));
      }),
    );

  webhook
    .command('create <tenant> <url>')
    .description('create a webhook; prints it as JSON with its secret, shown this once')
    .option('--entities <list>', 'comma-separated entities to send (person,group,...); default all')
    .option('--description <text>', 'description')
    .action((tenant: string, url: string, options: { entities?: string; description?: string }) =>
      withStorage(async (storage, config) => {
        const input = validated<NewWebhook>(NewWebhookSchema, {
          url,
          ...(options.entities !== undefined ? { entities: options.entities.split(',').map((entity) => entity.trim()) } : {}),
          ...(options.description !== undefined ? { description: options.description } : {}),
        });
        print(toApiCreatedWebhook(await createWebhook(await contextFor(storage, config, tenant), input)));
      }),
    );

  for (const [name, enabled, description] of [
    ['enable', true, 'enable a webhook: a disabled one resumes at the message it stopped at'],
    ['disable', false, 'disable a webhook: its messages wait until it is enabled again'],
  ] as const) {
    webhook
      .command(`${name} <tenant> <id>`)
      .description(description)
      .action((tenant: string, id: string) =>
        withStorage(async (storage, config) => {
          print(toApiWebhook(await changeWebhook(await contextFor(storage, config, tenant), idOption(id, 'id'), { enabled }, undefined)));
        }),
      );
  }

  webhook
    .command('delete <tenant> <id>')
    .description('delete a webhook and its delivery log')
    .action((tenant: string, id: string) =>
      withStorage(async (storage, config) => {
        await removeWebhook((await contextFor(storage, config, tenant)).db, idOption(id, 'id'), undefined);
        process.stdout.write(`webhook ${id} deleted\n`);
      }),
    );
}
