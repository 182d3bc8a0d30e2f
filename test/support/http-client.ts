import { expect } from 'vitest';
import { assertMatchesOpenApi } from './openapi-validator.js';

export interface HttpResult {
  readonly status: number;
  readonly headers: Headers;
  /** Parsed JSON when the response says it is JSON, otherwise the text. */
  readonly body: unknown;
  readonly text: string;
  readonly url: string;
}

export interface RequestOptions {
  /** Sent as `Authorization: Bearer <key>`; `null` sends no Authorization header. Defaults to the client's key. */
  readonly key?: string | null;
  /** The whole Authorization header, instead of `key`. */
  readonly authorization?: string;
  /** Serialised with JSON.stringify and sent as application/json. */
  readonly json?: unknown;
  /** Sent byte for byte (so big integers are not rounded client-side), as application/json unless `contentType` says otherwise. */
  readonly raw?: string | Uint8Array | ReadableStream<Uint8Array>;
  /** `null` sends no Content-Type at all. */
  readonly contentType?: string | null;
}

const encoder = new TextEncoder();

/** A fetch wrapper that checks every response it receives against the OpenAPI document. */
export class HttpClient {
  constructor(
    readonly baseUrl: string,
    private readonly defaultKey: string | null = null,
  ) {}

  /** `target` is a path under the base URL (`/pets?limit=5`) or a full URL. */
  url(target: string): string {
    return /^https?:\/\//.test(target) ? target : `${this.baseUrl}${target}`;
  }

  async request(method: string, target: string, options: RequestOptions = {}): Promise<HttpResult> {
    const url = this.url(target);
    const headers = new Headers();
    const key = options.key === undefined ? this.defaultKey : options.key;
    if (options.authorization !== undefined) headers.set('authorization', options.authorization);
    else if (key !== null) headers.set('authorization', `Bearer ${key}`);

    let body: Uint8Array | ReadableStream<Uint8Array> | undefined;
    if (options.json !== undefined) body = encoder.encode(JSON.stringify(options.json));
    else if (options.raw !== undefined) body = typeof options.raw === 'string' ? encoder.encode(options.raw) : options.raw;
    // A Uint8Array body gets no Content-Type from fetch, so `contentType: null` really sends none.
    const contentType = options.contentType === undefined ? (body === undefined ? null : 'application/json') : options.contentType;
    if (contentType !== null) headers.set('content-type', contentType);

    const response = await fetch(url, {
      method,
      headers,
      ...(body === undefined ? {} : { body }),
      ...(body instanceof ReadableStream ? { duplex: 'half' as const } : {}),
    });
    const text = await response.text();
    const isJson = /^application\/json\s*(;|$)/i.test(response.headers.get('content-type') ?? '');
    const result: HttpResult = {
      status: response.status,
      headers: response.headers,
      body: isJson && text !== '' ? (JSON.parse(text) as unknown) : text,
      text,
      url,
    };
    assertMatchesOpenApi(method, url, result);
    return result;
  }

  get(target: string, options?: RequestOptions): Promise<HttpResult> {
    return this.request('GET', target, options);
  }

  post(target: string, options?: RequestOptions): Promise<HttpResult> {
    return this.request('POST', target, options);
  }
}

export interface PetBody {
  readonly id: number;
  readonly name: string;
  readonly categoryId: number;
  readonly status: string;
}

/** The target of `Link: <...>; rel="next"`, or undefined when the header has no next link. */
export function nextLink(result: HttpResult): string | undefined {
  const link = result.headers.get('link');
  return link === null ? undefined : /<([^>]*)>\s*;\s*rel="next"/.exec(link)?.[1];
}

/** Follows rel="next" from the first page to the last; every page must be non-empty except a lone first page. */
export async function listAll(client: HttpClient, query = ''): Promise<{ pets: PetBody[]; pages: PetBody[][] }> {
  const pages: PetBody[][] = [];
  let target: string | undefined = client.url(`/pets${query}`);
  while (target !== undefined) {
    const page = await client.get(target);
    expect(page.status).toBe(200);
    const pets = page.body as PetBody[];
    if (pages.length > 0) expect(pets.length, 'a page reached through rel="next" is never empty').toBeGreaterThan(0);
    // Fails at the first page that does not move forward, before a looping cursor exhausts the quota.
    const seen = [...pages.flat(), ...pets].map((pet) => pet.id);
    expect(seen, `ids ascend across pages (page ${pages.length + 1}: ${target})`).toEqual([...seen].sort((a, b) => a - b));
    expect(new Set(seen).size, `no pet is listed twice (page ${pages.length + 1}: ${target})`).toBe(seen.length);
    pages.push(pets);
    const next = nextLink(page);
    target = next === undefined ? undefined : new URL(next, client.baseUrl).href;
  }
  return { pets: pages.flat(), pages };
}

/**
 * An error answer (docs/interface.md): `{code, message, status}` and nothing else, status equal to
 * the HTTP status, no stack trace or file path; a 400's message names the offending field.
 */
export function expectError(result: HttpResult, status: number, code: string, field?: string): void {
  expect(result.status, result.text).toBe(status);
  expect(result.body).toEqual({ code, message: expect.any(String), status });
  const { message } = result.body as { message: string };
  expect(message.length).toBeGreaterThan(0);
  expect(result.text).not.toMatch(/\n\s+at |\.[cm]?[jt]s:\d|node_modules|node:internal|\bstack\b/);
  if (field !== undefined) expect(message, `the message names ${field}`).toContain(field);
}

/** `status code` of each answer, counted: `{ '201': 1, '409 pet_unavailable': 29 }`. */
export function outcomes(results: readonly HttpResult[]): Record<string, number> {
  const counts: Record<string, number> = {};
  for (const result of results) {
    const code = (result.body as { code?: string } | undefined)?.code;
    const outcome = code === undefined ? String(result.status) : `${result.status} ${code}`;
    counts[outcome] = (counts[outcome] ?? 0) + 1;
  }
  return counts;
}
