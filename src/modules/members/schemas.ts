import Type, { type Static } from 'typebox';
import { FormatParameter } from '../../http/download-format.js';
import { PagingQuery } from '../../http/paging.js';
import { Envelope } from '../../http/schemas.js';
import { StoredText } from '../../lib/validation.js';
import { DaySchema, NamedMembershipSchema } from '../memberships/schemas.js';
import { PersonSchema } from '../people/schemas.js';

/** The forms of the members list: JSON, CSV, XLSX and vCard. */
export const MEMBER_FORMATS = ['json', 'csv', 'xlsx', 'vcf'] as const;

export const MembersQuery = Type.Object(
  {
    below: Type.Optional(Type.Boolean({ description: "true: the group's whole subtree (the group itself included)" })),
    all: Type.Optional(Type.Boolean({ description: 'true: ended and future memberships too (active_on then does not apply)' })),
    role_type: Type.Optional(StoredText({ maxLength: 64 })),
    q: Type.Optional(StoredText({ minLength: 1, maxLength: 255, description: 'Part of the first or last name, username or e-mail, in any case' })),
    active_on: Type.Optional(DaySchema),
    sort: Type.Optional(
      Type.Union([Type.Literal('name'), Type.Literal('-name'), Type.Literal('birthday'), Type.Literal('-birthday'), Type.Literal('role')], {
        description: 'name (default), -name, birthday, -birthday (unknown birthdays last either way), role (strongest selected membership first)',
      }),
    ),
    format: FormatParameter(MEMBER_FORMATS),
    ...PagingQuery,
  },
  { additionalProperties: false },
);
export type MembersFilters = Static<typeof MembersQuery>;

/** An item of the members list: the person, and the memberships that the filters select. */
export const MemberSchema = Type.Object({ person: PersonSchema, memberships: Type.Array(NamedMembershipSchema) });

export const MembersAnswer = Envelope(
  Type.Object({
    members: Type.Array(MemberSchema),
    next_cursor: Type.Union([Type.String(), Type.Null()]),
    total: Type.Optional(Type.Integer({ minimum: 0, description: 'On the first page only: how many people every page holds together' })),
  }),
);
