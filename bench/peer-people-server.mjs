// The peer of the people-page scenario (docs/benchmarks/README.md): Express 5 + better-sqlite3 on
// the same tenant file, answering a group's subtree page with the SQL one writes first: a recursive
// CTE for the subtree, a join with the memberships active today, ORDER BY the names, LIMIT and
// OFFSET. No token check (that only flatters the peer). Not part of the product; the benchmark
// measures the service against it.
import Database from 'better-sqlite3';
import express from 'express';
import { join } from 'node:path';

const file = join(process.env.DATA_DIR ?? './data', 'tenants', `${process.env.TENANT ?? 'people'}.sqlite`);
const db = new Database(file, { readonly: true, fileMustExist: true });
const page = db.prepare(`
  WITH RECURSIVE subtree(id) AS (
    SELECT id FROM groups WHERE id = ?
    UNION ALL
    SELECT g.id FROM groups g JOIN subtree s ON g.parent_id = s.id
  )
  SELECT DISTINCT u.id, u.username, u.email, u.firstname, u.lastname, u.gender_id, u.type_id, u.phonenumber,
         u.phonenumber_mobile, u.street, u.housenumber, u.zip, u.city, u.is_vegetarian, u.can_swimm,
         u.created_at, u.updated_at, u.birthday
  FROM users u
  JOIN memberships m ON m.person_id = u.id
  JOIN subtree s ON s.id = m.group_id
  WHERE m.start_on <= date('now') AND (m.end_on IS NULL OR m.end_on >= date('now'))
  ORDER BY u.lastname, u.firstname, u.id
  LIMIT ? OFFSET ?`);

const app = express();
app.get('/ready', (_request, response) => response.send('ok'));
app.get('/api/people', (request, response) => {
  const groupId = Number(request.query.group_id);
  const limit = Math.min(Number(request.query.limit ?? 50), 200);
  const pageNumber = Number(request.query.page ?? 0);
  const rows = page.all(groupId, limit + 1, pageNumber * limit);
  const people = rows.slice(0, limit).map((row) => ({ ...row, is_vegetarian: row.is_vegetarian === 1, can_swimm: row.can_swimm === 1 }));
  response.json({ success: true, message: 'success', data: { people, next_page: rows.length > limit ? pageNumber + 1 : null } });
});
const server = app.listen(Number(process.env.PORT ?? 0), '127.0.0.1');
process.on('SIGTERM', () => server.close(() => process.exit(0)));
