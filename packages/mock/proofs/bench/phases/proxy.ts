/** `npm run bench`, phase 6: the validating proxy's added latency (cgs-proxy in front of the mock). */
import path from 'node:path';
import { freePort } from '../../../src/node/launch.ts';
import { BASE, DURATION_MS, fmtMs, liftReadLimits, LIST, load, LOAD_HEADER, loadRow, type Measured, median, packageBuild, PROXY_CONNECTIONS, request, ROUNDS, start, stop, summary, table, TMP, verdicts, waitFor, WARMUP_MS } from '../common.ts';

export async function phaseProxy(): Promise<void> {
  console.log(`\n## 6. cgs-proxy: latency added in front of the mock, GET ${LIST} (${ROUNDS} rounds of ${DURATION_MS / 1000} s, direct and through the proxy alternately)\n`);
  const dist = await packageBuild();
  const [mockPort, proxyPort] = [await freePort(), await freePort()];
  const mock = start('mock', [dist('bin/cgs-mock.js'), '--port', String(mockPort), '--clock', 'manual']);
  const mockOrigin = `http://127.0.0.1:${mockPort}`;
  const readKey = await waitFor('mock', mock, async () => /^\s+read\s+(cgs_[0-9a-f]{64})$/m.exec(mock.output())?.[1]);
  await liftReadLimits(mockOrigin);
  const proxy = start('proxy', [dist('bin/cgs-proxy.js'), '--target', `${mockOrigin}${BASE}`, '--port', String(proxyPort), '--report-dir', path.join(TMP, 'proxy-report')]);
  await waitFor('proxy', proxy, async () => (proxy.output().includes('cgs-proxy: http') ? true : undefined));
  const proxyOrigin = `http://127.0.0.1:${proxyPort}`;
  const auth = { authorization: `Bearer ${readKey}` };
  const direct = await request(mockOrigin, 'GET', BASE + LIST, auth);
  const through = await request(proxyOrigin, 'GET', BASE + LIST, auth);
  if (through.status !== 200 || !through.body.equals(direct.body)) throw new Error('the proxy does not answer the mock\'s bytes');

  const rows: (string | number)[][] = [];
  const lines: string[] = [];
  for (const connections of PROXY_CONNECTIONS) {
    const sides: Record<'direct' | 'proxy', Measured[]> = { direct: [], proxy: [] };
    for (let round = 0; round < ROUNDS; round++) {
      for (const side of round % 2 ? (['proxy', 'direct'] as const) : (['direct', 'proxy'] as const)) {
        const origin = side === 'direct' ? mockOrigin : proxyOrigin;
        sides[side].push(await load(side === 'direct' ? mock.pid! : proxy.pid!, { origin, paths: [BASE + LIST], headers: auth, connections, warmupMs: WARMUP_MS, durationMs: DURATION_MS }));
      }
    }
    const p = (side: 'direct' | 'proxy', key: 'p50' | 'p99') => median(sides[side].map((m) => m.latencyMs[key]));
    for (const side of ['direct', 'proxy'] as const) {
      const best = sides[side].reduce((a, b) => (a.latencyMs.p50 <= b.latencyMs.p50 ? a : b));
      rows.push(loadRow(`${side === 'direct' ? 'mock' : 'through cgs-proxy'}, ${connections} conn.`, { ...best, latencyMs: { ...best.latencyMs, p50: p(side, 'p50'), p99: p(side, 'p99') } }));
    }
    const added50 = p('proxy', 'p50') - p('direct', 'p50');
    const added99 = p('proxy', 'p99') - p('direct', 'p99');
    lines.push(`- ${connections} connection${connections > 1 ? 's' : ''}: the proxy adds **${fmtMs(added50)} ms at p50** and **${fmtMs(added99)} ms at p99** (medians of ${ROUNDS} rounds: p50 ${fmtMs(p('direct', 'p50'))} → ${fmtMs(p('proxy', 'p50'))} ms, p99 ${fmtMs(p('direct', 'p99'))} → ${fmtMs(p('proxy', 'p99'))} ms)`);
  }
  await stop(proxy, 'SIGINT');
  const report = proxy.output().split('\n').filter((l) => l.startsWith('cgs-proxy: ') && l.includes('forwarded'));
  await stop(mock);
  const table_ = table(LOAD_HEADER, rows);
  console.log(`${table_}\n\n${lines.join('\n')}\n${report.join('\n')}`);
  verdicts.push(...lines);
  summary.push('### cgs-proxy: added latency', '', table_, '', ...lines, ...report.map((l) => `- ${l}`), '');
}
