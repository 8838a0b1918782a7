import { describe, expect, it } from 'vitest';
import { isValidSlug, normaliseHost, tenantSlugForHost } from '../../src/lib/tenant-hosts.js';

const rules = { serviceDomain: 'groupadmin.example', defaultTenant: 'demo' };

describe('tenantSlugForHost', () => {
  it.each([
    ['acme.groupadmin.example', 'acme'],
    ['ACME.GroupAdmin.Example', 'acme'],
    ['acme.groupadmin.example:8443', 'acme'],
    ['acme.groupadmin.example.', 'acme'],
    ['my-club-2.groupadmin.example', 'my-club-2'],
    ['groupadmin.example', 'demo'],
    ['localhost', 'demo'],
    ['localhost:3000', 'demo'],
    ['127.0.0.1:3000', 'demo'],
    ['[::1]:3000', 'demo'],
    ['[::1]', 'demo'],
    ['a.b.groupadmin.example', null],
    ['www.groupadmin.example', null],
    ['api.groupadmin.example', null],
    ['admin.groupadmin.example', null],
    ['-acme.groupadmin.example', null],
    ['acme-.groupadmin.example', null],
    ['acme.other.example', null],
    ['evilgroupadmin.example', null],
    ['', null],
    [undefined, null],
  ])('%j -> %j', (host, slug) => {
    expect(tenantSlugForHost(host, rules)).toBe(slug);
  });

  it('selects no tenant for the bare domain when no default is set', () => {
    expect(tenantSlugForHost('localhost', { ...rules, defaultTenant: null })).toBeNull();
    expect(tenantSlugForHost('acme.groupadmin.example', { ...rules, defaultTenant: null })).toBe('acme');
  });
});

describe('slugs', () => {
  it('are DNS labels of lowercase letters, digits and inner hyphens, not reserved', () => {
    expect(isValidSlug('a')).toBe(true);
    expect(isValidSlug('a'.repeat(63))).toBe(true);
    expect(isValidSlug('a'.repeat(64))).toBe(false);
    expect(isValidSlug('Acme')).toBe(false);
    expect(isValidSlug('a_b')).toBe(false);
    expect(isValidSlug('www')).toBe(false);
  });

  it('normalises hosts', () => {
    expect(normaliseHost('Example.ORG:80')).toBe('example.org');
    expect(normaliseHost('[2001:db8::1]:443')).toBe('2001:db8::1');
  });
});
