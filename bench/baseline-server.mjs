// The ceiling: a bare Fastify server whose one route returns a constant object of the user's
// shape. Not part of the product; the benchmark measures the service against it.
import Fastify from 'fastify';

const user = {
  id: 1, username: 'alice', email: 'alice@example.com', firstname: 'Alice', lastname: 'Example',
  gender_id: 2, type_id: null, phonenumber: null, phonenumber_mobile: null, street: 'Main Street',
  housenumber: '12a', zip: '01234', city: 'Bonn', is_vegetarian: false, can_swimm: true,
  created_at: '2026-11-21T09:30:05.123000Z', updated_at: '2026-11-21T09:30:05.123000Z',
};
const app = Fastify({ logger: false });
app.get('/api/user', async () => user);
await app.listen({ port: Number(process.env.PORT ?? 0), host: '127.0.0.1' });
process.stdout.write(`listening ${app.server.address().port}\n`);
process.on('SIGTERM', () => app.close().then(() => process.exit(0)));
