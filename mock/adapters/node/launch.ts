/**
 * Starting the node mock from another process: the one `freePort` of the suite's global setup
 * (conformance/global-setup.ts) and of the scripts that start a mock or a server beside it
 * (scripts/bench/bench.ts, scripts/conformance-shared.ts, scripts/prove-real-target.ts).
 */
import { createServer } from 'node:net';

/** A TCP port on 127.0.0.1 that was free a moment ago (listen on 0, read the port, close). */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.unref();
    server.on('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() => (typeof address === 'object' && address ? resolve(address.port) : reject(new Error('no port'))));
    });
  });
}
