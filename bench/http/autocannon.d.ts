/** The part of autocannon 9's programmatic API the HTTP bench uses (the package ships no types). */
declare module 'autocannon' {
  import type { EventEmitter } from 'node:events';

  function autocannon(options: autocannon.Options, done: (error: Error | null, result: autocannon.Result) => void): autocannon.Instance;

  namespace autocannon {
    interface RequestSpec {
      method?: string;
      path?: string;
      headers?: Record<string, string>;
      body?: string;
      /**
       * Called before each sending with the connection's context; what it answers is sent, and
       * null skips the rest of the connection's requests, which start again from the first.
       */
      setupRequest?: (request: RequestSpec, context: object) => RequestSpec | null;
      /** Called with every answer to this request; the context is emptied whenever the requests start again. */
      onResponse?: (status: number, body: string, context: object, headers: Record<string, string | string[]>) => void;
    }

    interface Client {
      setRequests(requests: RequestSpec[]): void;
    }

    interface Options extends RequestSpec {
      url: string;
      connections: number;
      /** Seconds. */
      duration: number;
      setupClient?: (client: Client) => void;
    }

    interface Result {
      /** Seconds. */
      duration: number;
      errors: number;
      timeouts: number;
      non2xx: number;
      '2xx': number;
      statusCodeStats: Record<string, { count: number }>;
    }

    interface Instance extends EventEmitter {
      on(event: 'response', listener: (client: Client, statusCode: number, bytes: number, responseTimeMs: number) => void): this;
    }
  }

  export = autocannon;
}
