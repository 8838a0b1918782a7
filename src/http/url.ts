import type { IncomingMessage } from 'node:http';

// HOT PATH (see docs/architecture.md): runs before routing for every request; a path without
// `%` leaves at the first test.

/**
 * The request's URL with a path the router can decode. A `%` that starts no valid escape (`%zz`,
 * a lone `%`, bytes that are no UTF-8) made Fastify answer its own 400 body before any of ours,
 * without our headers. Such a path is read with its `%` signs as themselves (`%25`): it then
 * names no route (404 in the service's shape) or an id that names nothing, as any other odd path.
 */
export function decodableUrl(request: IncomingMessage): string {
  const url = request.url ?? '/';
  if (!url.includes('%')) return url;
  const queryAt = url.indexOf('?');
  const path = queryAt === -1 ? url : url.slice(0, queryAt);
  try {
    decodeURIComponent(path);
    return url;
  } catch {
    return path.replaceAll('%', '%25') + (queryAt === -1 ? '' : url.slice(queryAt));
  }
}
