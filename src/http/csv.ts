import type { FastifyReply } from 'fastify';
import type { Readable } from 'node:stream';
import { attachment } from '../lib/csv.js';

/** Sends a streamed CSV document as a download named `filename` (lists choose their form in download-format.ts). */
export function sendCsv(reply: FastifyReply, filename: string, body: Readable): FastifyReply {
  return reply.header('content-type', 'text/csv; charset=utf-8').header('content-disposition', attachment(filename)).send(body);
}
