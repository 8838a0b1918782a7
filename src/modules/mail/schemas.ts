import Type from 'typebox';
import { Timestamp } from '../../http/schemas.js';

export const EmailStatusSchema = Type.Object(
  {
    state: Type.Union([Type.Literal('ok'), Type.Literal('failing')], {
      description: 'failing: the SMTP server refused the current address permanently three times; no mail goes to it until it changes or the status is reset',
    }),
    refusals: Type.Integer({ minimum: 0, description: 'Permanent refusals of the current address (a refusal that arrives later as a bounce mail is not counted)' }),
    last_error: Type.Union([Type.String(), Type.Null()], { description: "The SMTP server's last refusal" }),
    since: Type.Union([Timestamp, Type.Null()], { description: 'When the address became failing' }),
  },
  { additionalProperties: false },
);
