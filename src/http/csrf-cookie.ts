import type { FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';
import { ensureXsrfCookie } from './session.js';

/**
 * GET /api/csrf-cookie: 204 with the XSRF-TOKEN cookie a browser needs before signing in (session.ts).
 * Outside the tenant and rate-limit hooks, like the health probes: it reads nothing and writes
 * nothing but a random cookie, and a page may ask for it as often as it likes.
 */
export default fp(
  async function csrfCookie(app: FastifyInstance) {
    app.get(
      '/api/csrf-cookie',
      {
        schema: {
          tags: ['extensions'],
          operationId: 'getCsrfCookie',
          summary: 'The XSRF-TOKEN cookie',
          description:
            'Sets the cookie XSRF-TOKEN (40 characters, readable by the page\'s script, SameSite=Lax, host-only; Secure over HTTPS), keeping one already set. Send its value as the X-XSRF-TOKEN header with POST /session and with every POST, PUT, PATCH and DELETE that the session cookie authenticates. Not counted by the rate limit.',
          security: [],
          response: { 204: { type: 'null', description: 'The cookie is set' } },
        },
      },
      async (request, reply) => {
        ensureXsrfCookie(reply, request);
        return reply.code(204).send();
      },
    );
  },
  { name: 'csrf-cookie' },
);
