import { request, type IncomingHttpHeaders } from 'node:http';
import { brotliDecompressSync, gunzipSync } from 'node:zlib';

/** Requests made and bytes received (status lines, headers and bodies, as they crossed the socket). */
export interface LoadBytes {
  readonly requests: number;
  readonly bytes: number;
}

export interface DocsPageLoad {
  /** An empty cache: the page, every file it links and the document it shows. */
  readonly cold: LoadBytes;
  /** The same page loaded again with what the first load cached (a reload, or the next visit). */
  readonly warm: LoadBytes;
}

/** What Chromium sends. */
const ACCEPT_ENCODING = 'gzip, deflate, br, zstd';

interface Fetched {
  readonly status: number;
  readonly headers: IncomingHttpHeaders;
  /** Decoded. */
  readonly body: Buffer;
  readonly wireBytes: number;
}

/** One GET on a connection of its own, so the socket's byte count is this answer's. */
function get(url: URL, headers: Readonly<Record<string, string>>): Promise<Fetched> {
  return new Promise((resolve, reject) => {
    const req = request(url, { headers: { 'accept-encoding': ACCEPT_ENCODING, ...headers }, agent: false }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('error', reject);
      res.on('end', () => {
        const raw = Buffer.concat(chunks);
        const encoding = res.headers['content-encoding'];
        const body = encoding === 'br' ? brotliDecompressSync(raw) : encoding === 'gzip' ? gunzipSync(raw) : raw;
        resolve({ status: res.statusCode ?? 0, headers: res.headers, body, wireBytes: res.socket.bytesRead });
      });
    });
    req.on('error', reject);
    req.end();
  });
}

/** Reused without asking while fresh (RFC 9111): a positive max-age and no no-cache or no-store. */
const isFresh = (headers: IncomingHttpHeaders): boolean => {
  const cacheControl = headers['cache-control'] ?? '';
  return !/no-cache|no-store/.test(cacheControl) && /max-age=[1-9]/.test(cacheControl);
};

/** The page's scripts, styles and icon, and the document Swagger UI fetches, as URLs. */
const referencesOf = (page: URL, html: string): URL[] =>
  [...html.matchAll(/(?:src|href|data-openapi-url)="([^"]+)"/g)].map((match) => new URL(match[1]!, page));

interface Cached {
  readonly fresh: boolean;
  readonly etag: string | undefined;
  readonly body: Buffer;
}

/**
 * Loads the docs page at `pageUrl` as a browser would, twice: once with an empty cache, once
 * with what the first load left in it (fresh answers reused, the others revalidated with
 * If-None-Match, answered 304 while unchanged).
 */
export async function measureDocsPageLoad(pageUrl: string): Promise<DocsPageLoad> {
  const cache = new Map<string, Cached>();
  const load = async (): Promise<LoadBytes> => {
    let requests = 0;
    let bytes = 0;
    const fetchCached = async (url: URL): Promise<Buffer> => {
      const cached = cache.get(url.href);
      if (cached?.fresh === true) return cached.body;
      const answer = await get(url, cached?.etag === undefined ? {} : { 'if-none-match': cached.etag });
      requests++;
      bytes += answer.wireBytes;
      if (answer.status === 304 && cached !== undefined) return cached.body;
      if (answer.status !== 200) throw new Error(`GET ${url.href} answered ${answer.status}`);
      const etag = answer.headers.etag;
      cache.set(url.href, { fresh: isFresh(answer.headers), etag, body: answer.body });
      return answer.body;
    };
    const page = new URL(pageUrl);
    const html = (await fetchCached(page)).toString('utf8');
    for (const reference of referencesOf(page, html)) await fetchCached(reference);
    return { requests, bytes };
  };
  const cold = await load();
  const warm = await load();
  return { cold, warm };
}
