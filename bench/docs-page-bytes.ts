/**
 * Bytes per load of the docs page (bench/http/docs-page-load.ts), with an empty cache and
 * again with a warm one, against this service on the memory store, in process. Run with
 * `node dist/bench/docs-page-bytes.js`.
 */
import { startPetStore } from '../src/app/start-pet-store.js';
import { measureDocsPageLoad } from './http/docs-page-load.js';

const store = await startPetStore({ PETSTORE_ENV: 'test', HOST: '127.0.0.1', PORT: '0', PETSTORE_API_KEYS: 'docs-bench-key:free' });
try {
  const { cold, warm } = await measureDocsPageLoad(`${store.baseUrl}/docs`);
  const format = (bytes: number): string => bytes.toLocaleString('en-US');
  console.log('| load | requests | bytes received |\n|---|---|---|');
  console.log(`| empty cache | ${cold.requests} | ${format(cold.bytes)} |`);
  console.log(`| warm cache | ${warm.requests} | ${format(warm.bytes)} |`);
} finally {
  await store.close();
}
