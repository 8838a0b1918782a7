import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Readable } from 'node:stream';
import type { TSchema } from 'typebox';
import Type from 'typebox';
import { attachment } from '../lib/csv.js';

/**
 * Lists that answer CSV too (the people list, the participant list): the client asks for it with
 * `Accept: text/csv` as its first media type; every other Accept gets JSON.
 */
export const wantsCsv = (request: FastifyRequest): boolean => {
  const first = (request.headers.accept ?? '').split(',')[0]?.split(';')[0]?.trim().toLowerCase();
  return first === 'text/csv';
};

/** Sends a streamed CSV document as a download named `filename`. */
export function sendCsv(reply: FastifyReply, filename: string, body: Readable): FastifyReply {
  return reply.header('content-type', 'text/csv; charset=utf-8').header('content-disposition', attachment(filename)).send(body);
}

/** A 200 answer documented as JSON (`schema`) or, with Accept: text/csv, as a CSV file. */
export const JsonOrCsv = (schema: TSchema, csvDescription: string) => ({
  description: 'JSON, or with `Accept: text/csv` a CSV file (attachment)',
  content: {
    'application/json': { schema },
    'text/csv': { schema: Type.String({ description: csvDescription }) },
  },
});
