/** The flags that choose the store, each mirroring an environment variable: the server's and `petstore keys`'s alike. */
export const STORE_FLAGS = {
  env: 'PETSTORE_ENV',
  store: 'PETSTORE_STORE',
  'redis-url': 'REDIS_URL',
  'redis-cluster-nodes': 'REDIS_CLUSTER_NODES',
  'redis-prefix': 'PETSTORE_REDIS_PREFIX',
  'database-url': 'DATABASE_URL',
} as const;
