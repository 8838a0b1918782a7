import Type, { type Static } from 'typebox';
import { StoredText } from '../../lib/validation.js';
import type { RoleTypeRow } from './queries.js';

const Permission = Type.Union([Type.Literal('none'), Type.Literal('read'), Type.Literal('write'), Type.Literal('admin')]);
const Scope = Type.Union([Type.Literal('group'), Type.Literal('subtree')]);

/** A role type, fields in this order. */
export const RoleTypeSchema = Type.Object({
  key: Type.String(),
  label: Type.String(),
  permission: Permission,
  scope: Scope,
});
export type ApiRoleType = Static<typeof RoleTypeSchema>;

export const RoleKey = Type.String({ minLength: 1, maxLength: 64, pattern: '^[a-z][a-z0-9_]*$' });
const Label = StoredText({ maxLength: 255 });

export const NewRoleTypeSchema = Type.Object({ key: RoleKey, label: Type.Optional(Label), permission: Permission, scope: Scope });
export type NewRoleType = Static<typeof NewRoleTypeSchema>;

export const RoleTypeUpdateSchema = Type.Object({ label: Type.Optional(Label), permission: Type.Optional(Permission), scope: Type.Optional(Scope) });
export type RoleTypeUpdate = Static<typeof RoleTypeUpdateSchema>;

export const toApiRoleType = (row: RoleTypeRow): ApiRoleType => ({ key: row.key, label: row.label, permission: row.permission, scope: row.scope });
