import type { FastifyInstance } from 'fastify';
import Type, { type Static } from 'typebox';
import { updateProfile } from '../../domain/accounts.js';
import { ProfileFields, toApiUser, UserConflictError } from '../../domain/users.js';
import { validationFailed, type FieldErrors } from '../../errors.js';
import { callerOf } from '../../plugins/auth.js';
import { UserSchema } from '../schemas.js';

const UpdateUserBody = Type.Partial(Type.Object(ProfileFields));

/** Fields a user cannot change about themselves here (the password has its own route). */
const PROHIBITED = ['id', 'username', 'password', 'is_active', 'created_at', 'updated_at'];

/** PATCH /user (extension): the caller changes their own profile; answers like GET /user. */
export default async function updateUserRoute(app: FastifyInstance) {
  app.patch<{ Body: Static<typeof UpdateUserBody> }>(
    '/user',
    { config: { requires: 'user:write' }, schema: { body: UpdateUserBody, response: { 200: UserSchema } } },
    async (request) => {
      const caller = callerOf(request);
      const prohibited: FieldErrors = {};
      for (const field of PROHIBITED) {
        if (Object.hasOwn(request.body, field)) prohibited[field] = [`The ${field.replace(/_/g, ' ')} field is prohibited.`];
      }
      if (Object.keys(prohibited).length > 0) throw validationFailed(prohibited);
      const changes = Object.fromEntries(
        Object.keys(ProfileFields)
          .filter((field) => Object.hasOwn(request.body, field))
          .map((field) => [field, request.body[field as keyof typeof request.body]]),
      );
      try {
        const updated = await updateProfile(request.tenant.db, caller.user.id, changes);
        // Remembered token rows carry the user: the next request must see the new profile.
        await app.authChanges.publish({ tenant: request.tenant.slug, userId: caller.user.id, tokenId: null });
        return toApiUser(updated);
      } catch (err) {
        if (err instanceof UserConflictError) throw validationFailed(err.fieldErrors);
        throw err;
      }
    },
  );
}
