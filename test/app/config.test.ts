import { describe, expect, it } from 'vitest';
import { loadConfig, type Environ } from '../../src/app/config.js';

const problems = (environ: Environ): readonly string[] => {
  const loaded = loadConfig(environ);
  return loaded.ok ? [] : loaded.error;
};

describe('proxy and CORS configuration', () => {
  it('trusts no proxy and leaves CORS off by default', () => {
    const loaded = loadConfig({});
    expect(loaded.ok && loaded.value.trustProxy).toEqual({ kind: 'none' });
    expect(loaded.ok && loaded.value.corsOrigins).toBeUndefined();
  });

  it('reads a hop count or CIDRs, and * or a list of origins', () => {
    const hops = loadConfig({ PETSTORE_TRUST_PROXY: '1', PETSTORE_CORS_ORIGINS: '*' });
    expect(hops.ok && [hops.value.trustProxy, hops.value.corsOrigins]).toEqual([{ kind: 'hops', hops: 1 }, '*']);
    const cidrs = loadConfig({ PETSTORE_TRUST_PROXY: '10.0.0.0/8,::1', PETSTORE_CORS_ORIGINS: 'https://a.example, http://localhost:3000' });
    expect(cidrs.ok && [cidrs.value.trustProxy, cidrs.value.corsOrigins]).toEqual([
      { kind: 'cidrs', cidrs: ['10.0.0.0/8', '::1/128'] },
      ['https://a.example', 'http://localhost:3000'],
    ]);
  });

  it('reports each bad value in one line naming the variable, alongside other mistakes', () => {
    expect(problems({ PORT: 'eighty', PETSTORE_TRUST_PROXY: '10.0.0.0/33', PETSTORE_CORS_ORIGINS: 'https://a.example/app' })).toEqual([
      'PORT="eighty": must be a whole number from 0 to 65535',
      'PETSTORE_TRUST_PROXY="10.0.0.0/33": the IPv4 range "10.0.0.0/33" needs a prefix length from 0 to 32',
      'PETSTORE_CORS_ORIGINS="https://a.example/app": write "https://a.example/app" as the origin browsers send: https://a.example',
    ]);
    expect(problems({ PETSTORE_TRUST_PROXY: 'yes', PETSTORE_CORS_ORIGINS: 'a.example' })).toEqual([
      'PETSTORE_TRUST_PROXY="yes": "yes" is not an IP address or CIDR; expected a hop count, or IP addresses and CIDRs such as 10.0.0.0/8, ::1/128',
      'PETSTORE_CORS_ORIGINS="a.example": "a.example" is not an origin such as https://app.example.com (scheme://host[:port], no path)',
    ]);
  });
});
