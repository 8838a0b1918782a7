import { describe, expect, it } from 'vitest';
import { isConnectionLost, isStorageUnavailable } from '../../src/db/errors.js';

const withCode = (code: string, message = 'x') => Object.assign(new Error(message), { code });

describe('isStorageUnavailable', () => {
  it.each([
    withCode('ECONNREFUSED'),
    withCode('57P01', 'terminating connection due to administrator command'),
    withCode('08006'),
    withCode('53300', 'too many connections'),
    withCode('55000', 'database "x" is not currently accepting connections'),
    new Error('Connection terminated unexpectedly'),
    new Error('timeout exceeded when trying to connect'),
    new Error('timeout expired'),
    new Error('Query read timeout'),
    new Error('Client was closed and is not queryable'),
    withCode('55P03', 'canceling statement due to lock timeout'),
    withCode('SQLITE_BUSY'),
    withCode('SQLITE_CANTOPEN'),
    withCode('SQLITE_IOERR_SHORT_READ'),
    Object.assign(new AggregateError([withCode('ECONNREFUSED'), withCode('ECONNREFUSED')]), {}),
  ])('treats %s as storage being away (503)', (error) => {
    expect(isStorageUnavailable(error)).toBe(true);
  });

  it.each([
    new Error('boom'),
    new TypeError('x is undefined'),
    withCode('23505', 'duplicate key value violates unique constraint'),
    withCode('42P01', 'relation "users" does not exist'),
    withCode('SQLITE_CONSTRAINT_UNIQUE'),
    null,
    'string',
  ])('treats %s as a fault of ours (500)', (error) => {
    expect(isStorageUnavailable(error)).toBe(false);
  });
});

describe('isConnectionLost', () => {
  it.each([
    withCode('ECONNRESET'),
    withCode('57P01', 'terminating connection due to administrator command'),
    withCode('08006'),
    new Error('Connection terminated unexpectedly'),
    new Error('timeout expired'),
    new Error('Query read timeout'),
  ])('treats %s as a connection that can carry nothing more', (error) => {
    expect(isConnectionLost(error)).toBe(true);
  });

  it.each([
    withCode('55P03', 'canceling statement due to lock timeout'),
    withCode('57014', 'canceling statement due to statement timeout'),
    withCode('53300', 'too many connections'),
    withCode('23505'),
    new Error('cached plan must not change result type'),
    null,
  ])('treats %s as leaving the connection usable', (error) => {
    expect(isConnectionLost(error)).toBe(false);
  });
});
