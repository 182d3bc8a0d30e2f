import { execFileSync } from 'node:child_process';
import { mkdir, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { chromium } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it, onTestFinished } from 'vitest';
import { startTestPetStore, type TestPetStore } from '../support/test-pet-store.js';

/*
 * The docs page in Debian's chromium, driven by playwright-core: it must render every operation
 * of the served document from this origin alone. CI installs chromium (.ci/run); without it the
 * test fails rather than skips, and it never downloads a browser.
 */

// The README's picture is rewritten only when asked (PETSTORE_UPDATE_SCREENSHOT=1): every run would otherwise change a tracked file.
const SCREENSHOT = process.env['PETSTORE_UPDATE_SCREENSHOT'] === '1' ? 'docs/images/docs-page.png' : join(tmpdir(), `petstore-docs-page-${process.pid}.png`);
const SCREENSHOT_MAX_BYTES = 400 * 1024;

/** Debian's chromium on PATH; a clear failure otherwise. */
function chromiumOnPath(): string {
  try {
    return execFileSync('which', ['chromium'], { encoding: 'utf8' }).trim();
  } catch {
    throw new Error("Debian's chromium is not on PATH: install it (`apt-get install -y chromium`; .ci/run does so when it is missing). This test never downloads a browser.");
  }
}

interface Observed {
  readonly urls: string[];
  readonly failed: string[];
  readonly refused: string[];
  readonly consoleErrors: string[];
}

let store: TestPetStore;
beforeAll(async () => {
  store = await startTestPetStore();
});
afterAll(() => store.close());

describe('the docs page in headless chromium', () => {
  it('loads from this origin alone, without a failed request or a console error, and shows every operation of the document', async () => {
    // Launched in the test, so a missing chromium fails it with its message.
    const browser = await chromium.launch({
      executablePath: chromiumOnPath(),
      args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'],
    });
    onTestFinished(() => browser.close());
    const document = (await store.anonymous.get('/openapi.json')).body as {
      paths: Record<string, Record<string, { operationId: string; deprecated?: boolean }>>;
    };
    const expected = Object.entries(document.paths)
      .flatMap(([path, item]) =>
        Object.entries(item).map(([method, { operationId, deprecated }]) => `${method.toUpperCase()} ${path} ${operationId}${deprecated === true ? ' deprecated' : ''}`),
      )
      .sort();
    expect(expected.length).toBeGreaterThan(0);

    const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
    const page = await context.newPage();
    const observed: Observed = { urls: [], failed: [], refused: [], consoleErrors: [] };
    page.on('request', (request) => observed.urls.push(request.url()));
    page.on('requestfailed', (request) => observed.failed.push(`${request.url()}: ${request.failure()?.errorText}`));
    page.on('response', (response) => {
      if (response.status() >= 400) observed.refused.push(`${response.url()}: ${response.status()}`);
    });
    page.on('console', (message) => {
      if (message.type() === 'error') observed.consoleErrors.push(message.text());
    });
    page.on('pageerror', (error) => observed.consoleErrors.push(String(error)));

    const docsUrl = `${store.baseUrl}/docs`;
    const loaded = await page.goto(docsUrl, { waitUntil: 'networkidle' });
    expect(loaded?.status()).toBe(200);
    await page.locator('.opblock').nth(expected.length - 1).waitFor();

    const rendered = await page.$$eval('.opblock', (blocks) =>
      blocks.map((block) => {
        const text = (selector: string): string => block.querySelector(selector)?.textContent?.trim() ?? '';
        const path = block.querySelector('[data-path]')?.getAttribute('data-path') ?? '';
        const deprecated = block.classList.contains('opblock-deprecated') ? ' deprecated' : '';
        return `${text('.opblock-summary-method')} ${path} ${text('.opblock-summary-operation-id')}${deprecated}`;
      }),
    );
    expect(rendered.sort()).toEqual(expected);

    await mkdir(dirname(SCREENSHOT), { recursive: true });
    await page.screenshot({ path: SCREENSHOT });
    expect((await stat(SCREENSHOT)).size).toBeLessThan(SCREENSHOT_MAX_BYTES);
    if (SCREENSHOT.startsWith(tmpdir())) await rm(SCREENSHOT);

    const origin = new URL(docsUrl).origin;
    expect(observed.urls.filter((url) => new URL(url).origin !== origin), 'requests to another origin').toEqual([]);
    // The bundle by its versioned URL (?v=<its content hash>), as the page links it.
    expect(observed.urls).toEqual(expect.arrayContaining([docsUrl, `${store.baseUrl}/openapi.json`, expect.stringMatching(/\/docs\/swagger-ui-bundle\.js\?v=[A-Za-z0-9_-]{43}$/)]));
    expect(observed.failed, 'failed requests').toEqual([]);
    expect(observed.refused, 'answers >= 400').toEqual([]);
    expect(observed.consoleErrors, 'console errors').toEqual([]);
  });
});
