import type { IncomingMessage } from 'node:http';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { clientAddressResolver, parseTrustProxy, type TrustProxy } from '../../src/adapters/http/pipeline/client-address.js';

const request = (remoteAddress: string | undefined, forwardedFor?: string): IncomingMessage =>
  ({ headers: forwardedFor === undefined ? {} : { 'x-forwarded-for': forwardedFor }, socket: { remoteAddress } }) as unknown as IncomingMessage;

const trust = (text: string): TrustProxy => {
  const parsed = parseTrustProxy(text);
  if (!parsed.ok) throw new Error(parsed.error);
  return parsed.value;
};
const resolve = (trustText: string, remoteAddress: string | undefined, forwardedFor?: string): string =>
  clientAddressResolver(trust(trustText))(request(remoteAddress, forwardedFor));

describe('parseTrustProxy', () => {
  it('reads nothing (or 0) as no trust, a number as hops, anything else as addresses and CIDRs', () => {
    expect(parseTrustProxy('')).toEqual({ ok: true, value: { kind: 'none' } });
    expect(parseTrustProxy('0')).toEqual({ ok: true, value: { kind: 'none' } });
    expect(parseTrustProxy(' 2 ')).toEqual({ ok: true, value: { kind: 'hops', hops: 2 } });
    expect(parseTrustProxy('10.0.0.0/8, 192.168.1.5, ::1/128,fd00::/8')).toEqual({
      ok: true,
      value: { kind: 'cidrs', cidrs: ['10.0.0.0/8', '192.168.1.5/32', '::1/128', 'fd00::/8'] },
    });
  });

  it.each([
    ['101', 'a hop count must be from 0 to 100'],
    ['10.0.0.0/8,', 'an entry is empty; expected a hop count, or IP addresses and CIDRs such as 10.0.0.0/8, ::1/128'],
    ['loopback', '"loopback" is not an IP address or CIDR; expected a hop count, or IP addresses and CIDRs such as 10.0.0.0/8, ::1/128'],
    ['10.0.0.0/33', 'the IPv4 range "10.0.0.0/33" needs a prefix length from 0 to 32'],
    ['::1/129', 'the IPv6 range "::1/129" needs a prefix length from 0 to 128'],
    ['10.0.0.0/', 'the IPv4 range "10.0.0.0/" needs a prefix length from 0 to 32'],
    ['fe80::1%eth0', '"fe80::1%eth0" is not an IP address or CIDR; expected a hop count, or IP addresses and CIDRs such as 10.0.0.0/8, ::1/128'],
  ])('refuses %j with one clear message', (text, message) => {
    expect(parseTrustProxy(text)).toEqual({ ok: false, error: message });
  });
});

describe('clientAddressResolver without trust', () => {
  it('keys by the socket peer and ignores a spoofed X-Forwarded-For', () => {
    expect(resolve('', '203.0.113.9', '1.2.3.4')).toBe('203.0.113.9');
    expect(resolve('', '::ffff:203.0.113.9', '1.2.3.4')).toBe('203.0.113.9');
    expect(resolve('', '2001:db8:1:2:3:4:5:6', '1.2.3.4')).toBe('2001:db8:1:2::/64');
  });

  it('keys loopback, link-local with a zone id, and an unknown peer', () => {
    expect(resolve('', '::1')).toBe('::/64');
    expect(resolve('', 'fe80::1%eth0')).toBe('fe80::/64');
    expect(resolve('', undefined)).toBe('unknown');
  });
});

describe('clientAddressResolver with a hop count (Express semantics)', () => {
  const xff = '198.51.100.1, 198.51.100.2, 10.0.0.3';

  it('takes the nth address from the right, the socket peer being hop 0, clamped to the leftmost', () => {
    expect(resolve('1', '10.0.0.4', xff)).toBe('10.0.0.3');
    expect(resolve('2', '10.0.0.4', xff)).toBe('198.51.100.2');
    expect(resolve('3', '10.0.0.4', xff)).toBe('198.51.100.1');
    expect(resolve('9', '10.0.0.4', xff)).toBe('198.51.100.1');
  });

  it('keys by the peer when there is no X-Forwarded-For', () => {
    expect(resolve('2', '10.0.0.4')).toBe('10.0.0.4');
  });

  it('reads repeated headers, which node joins with ", ", as one list', () => {
    expect(resolve('2', '10.0.0.4', ['198.51.100.1', '198.51.100.2, 10.0.0.3'].join(', '))).toBe('198.51.100.2');
  });

  it('normalises forwarded IPv6 and IPv4-mapped addresses', () => {
    expect(resolve('1', '10.0.0.4', '2001:DB8:0:0:1::9')).toBe('2001:db8::/64');
    expect(resolve('1', '10.0.0.4', '::ffff:198.51.100.7')).toBe('198.51.100.7');
    expect(resolve('1', '10.0.0.4', '::ffff:c633:6407')).toBe('198.51.100.7');
    expect(resolve('1', '10.0.0.4', '0:0:0:0:0:ffff:198.51.100.7')).toBe('198.51.100.7');
  });

  it('stops at the last good address when an entry is malformed', () => {
    expect(resolve('3', '10.0.0.4', '198.51.100.1, unknown, 10.0.0.3')).toBe('10.0.0.3');
    expect(resolve('3', '10.0.0.4', '198.51.100.1,, 10.0.0.3')).toBe('10.0.0.3');
    expect(resolve('1', '10.0.0.4', '198.51.100.1:443')).toBe('10.0.0.4');
    expect(resolve('1', '10.0.0.4', '')).toBe('10.0.0.4');
    expect(resolve('2', '10.0.0.4', ', 10.0.0.3')).toBe('10.0.0.3');
  });
});

describe('clientAddressResolver with trusted CIDRs', () => {
  const ranges = '10.0.0.0/8, 2001:db8:ffff::/48';

  it('walks left while the address is trusted; the first untrusted one is the client', () => {
    expect(resolve(ranges, '10.0.0.4', '203.0.113.5, 198.51.100.1, 10.9.9.9')).toBe('198.51.100.1');
    expect(resolve(ranges, '2001:db8:ffff::1', '203.0.113.5')).toBe('203.0.113.5');
  });

  it('ignores X-Forwarded-For from an untrusted peer', () => {
    expect(resolve(ranges, '203.0.113.7', '198.51.100.1')).toBe('203.0.113.7');
  });

  it('takes the leftmost address when every one is trusted', () => {
    expect(resolve(ranges, '10.0.0.4', '10.1.1.1, 10.2.2.2')).toBe('10.1.1.1');
  });

  it('trusts an IPv4-mapped peer inside an IPv4 range (dual-stack sockets)', () => {
    expect(resolve(ranges, '::ffff:10.0.0.4', '198.51.100.1')).toBe('198.51.100.1');
  });

  it('trusts a single address and keys the caller behind it by its /64', () => {
    expect(resolve('::1', '::1', '2001:db8:a:b:c:d:e:f')).toBe('2001:db8:a:b::/64');
  });

  it('stops at the last good address when an entry is malformed', () => {
    expect(resolve(ranges, '10.0.0.4', '203.0.113.5, not-an-ip, 10.9.9.9')).toBe('10.9.9.9');
  });
});

describe('IPv6 keys', () => {
  // Eight 16-bit groups written three ways: compressed (as URL prints it), expanded with leading
  // zeros in random case, and with a zone id.
  const groupsArb = fc.array(fc.integer({ min: 0, max: 0xffff }), { minLength: 8, maxLength: 8 });
  const compressed = (groups: readonly number[]): string => new URL(`http://[${groups.map((g) => g.toString(16)).join(':')}]`).hostname.slice(1, -1);
  const expanded = (groups: readonly number[], upper: boolean): string => {
    const text = groups.map((g) => g.toString(16).padStart(4, '0')).join(':');
    return upper ? text.toUpperCase() : text;
  };
  // The ::ffff:0:0/96 range holds IPv4 addresses, keyed by their dotted quad instead.
  const mapped = (groups: readonly number[]): boolean => groups.slice(0, 5).every((g) => g === 0) && groups[5] === 0xffff;
  const key = clientAddressResolver({ kind: 'none' });
  const keyOf = (address: string): string => key(request(address));

  it('gives any two addresses of one /64, in any spelling, the same key: the /64 in RFC 5952 text', () => {
    fc.assert(
      fc.property(groupsArb, groupsArb, fc.boolean(), (a, b, upper) => {
        const second = [...a.slice(0, 4), ...b.slice(4)];
        fc.pre(!mapped(a) && !mapped(second));
        const expected = `${compressed([...a.slice(0, 4), 0, 0, 0, 0])}/64`;
        expect(keyOf(compressed(a))).toBe(expected);
        expect(keyOf(expanded(second, upper))).toBe(expected);
        expect(keyOf(`${compressed(second)}%eth0`)).toBe(expected);
      }),
    );
  });

  it('gives addresses of different /64s different keys', () => {
    fc.assert(
      fc.property(groupsArb, groupsArb, (a, b) => {
        fc.pre(a.slice(0, 4).some((g, i) => g !== b[i]) && !mapped(a) && !mapped(b));
        expect(keyOf(compressed(a))).not.toBe(keyOf(compressed(b)));
      }),
    );
  });

  it('gives an IPv4-mapped address the key of its IPv4 address, in any spelling', () => {
    fc.assert(
      fc.property(fc.ipV4(), (ip) => {
        const [a = 0, b = 0, c = 0, d = 0] = ip.split('.').map(Number);
        const groups = [0, 0, 0, 0, 0, 0xffff, (a << 8) | b, (c << 8) | d];
        expect(keyOf(`::ffff:${ip}`)).toBe(ip);
        expect(keyOf(expanded(groups, true))).toBe(ip);
      }),
    );
  });
});
