import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, hostOf, JSON_HEADERS, PASSWORD, type TestApp } from '../helpers/app.js';
import { checkContract } from '../helpers/contract.js';

describe('the contract check every in-process answer goes through', () => {
  let t: TestApp;
  let document: Record<string, unknown>;
  beforeAll(async () => {
    t = await buildTestApp();
    document = t.app.swagger() as Record<string, unknown>;
  });
  afterAll(() => t.close());

  const json = { 'content-type': 'application/json; charset=utf-8' };

  it('passes real answers', async () => {
    await t.addUser('demo');
    const token = await t.login('demo', 'alice', PASSWORD);
    const answer = await t.app.inject({ method: 'GET', url: '/api/user', headers: { ...JSON_HEADERS, host: hostOf('demo'), authorization: `Bearer ${token}` } });
    expect(() => checkContract(document, 'GET', '/api/user', answer)).not.toThrow();
  });

  it('fails an undocumented status, an undocumented field and a wrong type', () => {
    expect(() => checkContract(document, 'GET', '/api/user', { statusCode: 418, body: '{}', headers: json })).toThrow(/undocumented status/);
    expect(() =>
      checkContract(document, 'GET', '/api/user', { statusCode: 401, body: '{"message":"Unauthenticated.","extra":1}', headers: json }),
    ).toThrow(/does not match/);
    expect(() =>
      checkContract(document, 'POST', '/api/login', { statusCode: 422, body: '{"success":false,"message":"x","errors":{"a":"b"}}', headers: json }),
    ).toThrow(/does not match/);
    expect(() => checkContract(document, 'DELETE', '/api/tokens/5', { statusCode: 204, body: 'x', headers: {} })).toThrow(/no body/);
  });

  it('leaves answers outside the document alone', () => {
    expect(() => checkContract(document, 'GET', '/health', { statusCode: 200, body: '{}', headers: json })).not.toThrow();
    expect(() => checkContract(document, 'GET', '/api/nowhere', { statusCode: 404, body: '{}', headers: json })).not.toThrow();
  });
});
