/**
 * The validating proxy's checks on a thread of their own (packages/conformance/proxy/server.ts, `checker: 'worker'`): the
 * thread that forwards never waits for a check, so the latency it adds stays that of forwarding
 * even when traffic comes faster than it can be checked (the checks then queue here).
 */
import { parentPort, workerData } from 'node:worker_threads';
import { inspect, type InspectOptions, type ObservedExchange } from './inspect.ts';

const { origin, options } = workerData as { origin: string; options: InspectOptions };

parentPort!.on('message', ({ id, exchange }: { id: number; exchange: ObservedExchange }) => {
  const restored: ObservedExchange = { ...exchange, requestBody: Buffer.from(exchange.requestBody), responseBody: Buffer.from(exchange.responseBody) };
  try {
    parentPort!.postMessage({ id, inspection: inspect(restored, origin, options) });
  } catch (error) {
    parentPort!.postMessage({ id, error: (error as Error).message });
  }
});
