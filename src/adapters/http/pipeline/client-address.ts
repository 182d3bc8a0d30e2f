import type { IncomingMessage } from 'node:http';
import { BlockList, isIP } from 'node:net';
import { err, ok, type Result } from '../../../domain/result.js';

export type TrustProxy =
  | { readonly kind: 'none' }
  /** The host framework decides: express's `req.ip`, under its own `trust proxy` setting. */
  | { readonly kind: 'host' }
  | { readonly kind: 'hops'; readonly hops: number }
  | { readonly kind: 'cidrs'; readonly cidrs: readonly string[] };

const NO_TRUST: TrustProxy = { kind: 'none' };
const MAX_HOPS = 100;
const UNKNOWN = 'unknown';

/** Parses PETSTORE_TRUST_PROXY: empty for none, a hop count, or comma-separated addresses and CIDRs. */
export function parseTrustProxy(text: string): Result<TrustProxy, string> {
  const trimmed = text.trim();
  if (trimmed === '') return ok(NO_TRUST);
  if (/^[0-9]+$/.test(trimmed)) {
    const hops = Number(trimmed);
    if (hops > MAX_HOPS) return err(`a hop count must be from 0 to ${MAX_HOPS}`);
    return ok(hops === 0 ? NO_TRUST : { kind: 'hops', hops });
  }
  const cidrs: string[] = [];
  for (const entry of trimmed.split(',')) {
    const cidr = parseCidr(entry.trim());
    if (typeof cidr === 'string') return err(cidr);
    cidrs.push(`${cidr.address}/${cidr.prefix}`);
  }
  return ok({ kind: 'cidrs', cidrs });
}

interface Cidr {
  readonly address: string;
  readonly prefix: number;
  readonly family: 'ipv4' | 'ipv6';
}

/** `10.0.0.0/8`, `::1/128`, or a bare address (a range of one); a message naming the entry otherwise. */
function parseCidr(entry: string): Cidr | string {
  const expected = 'expected a hop count, or IP addresses and CIDRs such as 10.0.0.0/8, ::1/128';
  if (entry === '') return `an entry is empty; ${expected}`;
  const slash = entry.indexOf('/');
  const address = slash === -1 ? entry : entry.slice(0, slash);
  // Zone ids name an interface of this host, meaningless in a range.
  const version = address.includes('%') ? 0 : isIP(address);
  if (version === 0) return `"${entry}" is not an IP address or CIDR; ${expected}`;
  const bits = version === 4 ? 32 : 128;
  const prefixText = slash === -1 ? String(bits) : entry.slice(slash + 1);
  const prefix = /^[0-9]{1,3}$/.test(prefixText) ? Number(prefixText) : Number.NaN;
  if (!(prefix <= bits)) return `the IPv${version} range "${entry}" needs a prefix length from 0 to ${bits}`;
  return { address, prefix, family: version === 4 ? 'ipv4' : 'ipv6' };
}

type Resolver = (req: IncomingMessage) => string;
/** Whether the address at `hop` (0: the socket peer) is a proxy whose X-Forwarded-For entry is believed. */
type Vouch = (address: string, version: number, hop: number) => boolean;

/** The function, built once, that gives each request its quota subject address (docs/decisions.md: proxies). */
export function clientAddressResolver(trust: TrustProxy): Resolver {
  switch (trust.kind) {
    case 'none':
      return peerAddress;
    case 'host':
      return hostAddress;
    case 'hops': {
      const hops = trust.hops;
      const trusted: Vouch = (_address, _version, hop) => hop < hops;
      return (req) => forwardedAddress(req, trusted);
    }
    case 'cidrs': {
      const ranges = new BlockList();
      for (const text of trust.cidrs) {
        const cidr = parseCidr(text);
        if (typeof cidr === 'string') throw new Error(`trust proxy: ${cidr}`);
        ranges.addSubnet(cidr.address, cidr.prefix, cidr.family);
      }
      // BlockList matches IPv4-mapped IPv6 addresses against IPv4 ranges and the other way round.
      const trusted: Vouch = (address, version) => version !== 0 && ranges.check(address, version === 4 ? 'ipv4' : 'ipv6');
      return (req) => forwardedAddress(req, trusted);
    }
  }
}

/** The address the host app resolved (express sets `req.ip`), checked, or the socket's when it set none. */
function hostAddress(req: IncomingMessage): string {
  const ip: unknown = (req as IncomingMessage & { ip?: unknown }).ip;
  return typeof ip === 'string' && isIP(ip) !== 0 ? ip : peerAddress(req);
}

// The hot path: a socket's address is always well formed, so no validation is needed.
function peerAddress(req: IncomingMessage): string {
  const peer = req.socket.remoteAddress;
  if (peer === undefined) return UNKNOWN;
  return peer.includes(':') ? ipv6Subject(peer) : peer;
}

/**
 * Walks [X-Forwarded-For entries..., socket peer] from the right while `trusted` vouches for the
 * address at hand (hop 0 is the peer). Reads the header backwards, so a long spoofed list costs
 * only the hops walked. A malformed entry ends the walk at the last good address.
 */
function forwardedAddress(req: IncomingMessage, trusted: Vouch): string {
  const peer = req.socket.remoteAddress;
  if (peer === undefined) return UNKNOWN;
  let address = peer;
  let version = isIP(peer);
  // Node joins repeated X-Forwarded-For headers with ', ': one list.
  const header = req.headers['x-forwarded-for'];
  if (typeof header === 'string') {
    for (let end = header.length, hop = 0; end >= 0 && trusted(address, version, hop); hop++) {
      const start = header.lastIndexOf(',', end - 1);
      const entry = header.slice(start + 1, end).trim();
      const entryVersion = isIP(entry);
      if (entryVersion === 0) break;
      address = entry;
      version = entryVersion;
      end = start;
    }
  }
  return version === 6 ? ipv6Subject(address) : address;
}

/** A valid IPv6 address as its quota subject: an IPv4-mapped one as its dotted quad, any other as its /64. */
function ipv6Subject(address: string): string {
  const zone = address.indexOf('%');
  const bare = zone === -1 ? address : address.slice(0, zone);
  // Dual-stack sockets report IPv4 callers as ::ffff:1.2.3.4: skip the expansion for them.
  if (bare.startsWith('::ffff:') && bare.indexOf(':', 7) === -1 && bare.includes('.')) return bare.slice(7);
  const groups = ipv6Groups(bare);
  if (groups[0] === 0 && groups[1] === 0 && groups[2] === 0 && groups[3] === 0 && groups[4] === 0 && groups[5] === 0xffff) {
    const [high = 0, low = 0] = groups.slice(6);
    return `${high >> 8}.${high & 0xff}.${low >> 8}.${low & 0xff}`;
  }
  // RFC 5952 text: the trailing zero groups are always the longest run, so they become the '::'.
  let kept = 4;
  while (kept > 0 && groups[kept - 1] === 0) kept--;
  let prefix = '';
  for (let i = 0; i < kept; i++) prefix += `${(groups[i] ?? 0).toString(16)}:`;
  return `${kept === 0 ? ':' : prefix}:/64`;
}

/** The eight 16-bit groups of a valid IPv6 address without zone id (a trailing dotted quad allowed). */
function ipv6Groups(address: string): number[] {
  let text = address;
  if (text.includes('.')) {
    const colon = text.lastIndexOf(':');
    const [a = 0, b = 0, c = 0, d = 0] = text.slice(colon + 1).split('.').map(Number);
    text = `${text.slice(0, colon + 1)}${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}`;
  }
  // One pass over the characters: this runs per request for IPv6 callers.
  const groups: number[] = [];
  let gap = -1;
  let value = 0;
  let digits = 0;
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i);
    if (code === 0x3a) {
      if (digits > 0) groups.push(value);
      else if (i > 0) gap = groups.length; // the second colon of '::'
      value = 0;
      digits = 0;
    } else {
      value = value * 16 + (code <= 0x39 ? code - 0x30 : (code | 0x20) - 0x57);
      digits++;
    }
  }
  if (digits > 0) groups.push(value);
  while (groups.length < 8) groups.splice(gap, 0, 0);
  return groups;
}
