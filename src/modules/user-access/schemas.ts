import Type, { type Static } from 'typebox';
import { RoleTypeSchema } from '../role-types/schemas.js';
import { TenantSchema } from '../tenants/schemas.js';

const Permission = Type.Union([Type.Literal('none'), Type.Literal('read'), Type.Literal('write'), Type.Literal('admin')]);
const Scope = Type.Union([Type.Literal('group'), Type.Literal('subtree')]);
const PersonName = { id: Type.Integer(), firstname: Type.String(), lastname: Type.String() };

/** GET /user/access, fields in this order. */
export const UserAccessSchema = Type.Object({
  user: Type.Object(PersonName),
  tenant: TenantSchema,
  role_types: Type.Array(RoleTypeSchema),
  memberships: Type.Array(
    Type.Object({
      id: Type.Integer(),
      group_id: Type.Integer(),
      group_name: Type.String(),
      role_type: Type.String(),
      start_on: Type.String({ format: 'date' }),
      end_on: Type.Union([Type.String({ format: 'date' }), Type.Null()]),
    }),
    { description: "The caller's memberships active today (in the tenant's time zone), by id" },
  ),
  permissions: Type.Array(Type.Object({ group_id: Type.Integer(), permission: Permission, scope: Scope }), {
    description: 'One entry per group where the caller holds an active membership: the strongest permission there and its scope (subtree over group at equal permission), by group id',
  }),
  wards: Type.Array(Type.Object(PersonName), { description: "The caller's wards, in name order" }),
  token_id: Type.Integer({ description: 'The token of this request ("this device")' }),
});
export type UserAccess = Static<typeof UserAccessSchema>;
