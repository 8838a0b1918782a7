import Type, { type TSchema } from 'typebox';

// Shapes every resource's answers share. Property order is the order on the wire (the
// serializer follows the schema), which the original interface fixes.

/** A moment: UTC, six fraction digits. */
export const Timestamp = Type.String({ description: 'UTC, six fraction digits, e.g. 2026-11-21T09:30:05.123000Z' });

/** The success envelope: success, message, data. */
export const Envelope = <T extends TSchema>(data: T) =>
  Type.Object({ success: Type.Boolean(), message: Type.String(), data });

// Error bodies (docs/api/conventions.md), for the OpenAPI document and the serializer.

export const ErrorSchema = Type.Object(
  { success: Type.Literal(false), message: Type.String() },
  { additionalProperties: false },
);

export const ValidationErrorSchema = Type.Object(
  {
    success: Type.Literal(false),
    message: Type.String({ description: 'The first message, plus " (and N more errors)"' }),
    errors: Type.Record(Type.String(), Type.Array(Type.String()), { description: 'field -> messages' }),
  },
  { additionalProperties: false },
);

export const UnauthenticatedSchema = Type.Object(
  { message: Type.Literal('Unauthenticated.') },
  { additionalProperties: false },
);

export const TooManyAttemptsSchema = Type.Object(
  { message: Type.Literal('Too Many Attempts.'), retry_after: Type.Integer({ minimum: 1 }) },
  { additionalProperties: false },
);

/** A deletion's answer: 204, no body. */
export const NoContent = Type.Null({ description: 'No content' });
