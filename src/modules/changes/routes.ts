import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import Type from 'typebox';
import { atLeast } from '../permissions/levels.js';
import { errors } from '../../errors.js';
import { ok } from '../../http/before-body.js';
import { refuseUnknownQueryParameters } from '../../http/query.js';
import { Envelope, ErrorSchema } from '../../http/schemas.js';
import { feedBounds, recordsAfter } from '../../recording/records.js';
import { ChangeSchema, ChangesQuery, DEFAULT_FEED_LIMIT, toApiChange } from './schemas.js';
import type { ResourceRouteOptions } from '../../http/route-kit.js';
import type { Access } from '../permissions/rules.js';

const tags = ['changes'];

/** The change feed, GET /changes (docs/api/sync.md). */
const changeRoutes: FastifyPluginAsyncTypebox<ResourceRouteOptions<Access>> = async (app, { accessOf }) => {
  refuseUnknownQueryParameters(app);
  app.get(
    '/changes',
    {
      config: { requires: 'changes:read' },
      schema: {
        tags,
        operationId: 'listChanges',
        summary: 'The change feed',
        description:
          'Every create, update and delete of people, groups, memberships, guardianships, role types, events and participations, in commit order: store `next_after` and ask again with `after=` to miss nothing. Needs `read` on the root group. Records are kept at least 30 days; an `after` older than that is 410.',
        querystring: ChangesQuery,
        response: {
          200: Envelope(Type.Object({ changes: Type.Array(ChangeSchema), next_after: Type.Integer() })),
          403: { ...ErrorSchema, description: 'Invalid ability provided., or This action is unauthorized. (read on the root needed)' },
          410: { ...ErrorSchema, description: 'The change feed no longer reaches back that far. (resynchronise in full)' },
        },
      },
    },
    async (request) => {
      const access = await accessOf(request);
      if (!atLeast(access.on(access.root.path), 'read')) throw errors.unauthorized();
      const db = request.tenant.db;
      const { lastSeq, prunedThrough } = await feedBounds(db);
      const asked = request.query.after;
      if (asked !== undefined && asked < prunedThrough) throw errors.changeFeedGone();
      const records = await recordsAfter(db, asked ?? prunedThrough, request.query.limit ?? DEFAULT_FEED_LIMIT);
      const changes = records.map(toApiChange);
      // An empty page: the `after` asked for, or without one the newest seq (nothing older to read).
      const nextAfter = changes.at(-1)?.seq ?? asked ?? Math.max(lastSeq, prunedThrough);
      return ok({ changes, next_after: nextAfter });
    },
  );
};

export default changeRoutes;
