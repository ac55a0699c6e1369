/** `npm run bench`, phase 4: media (D49) beside the API. */
import { performance } from 'node:perf_hooks';
import { launchMock } from '../../../src/node/launch.ts';
import { BASE, children, CONNECTIONS, DURATION_MS, fmtInt, fmtMs, liftReadLimits, LIST, load, LOAD_HEADER, loadRow, type Measured, median, request, ROUNDS, stop, summary, table, verdict, verdicts, waitFor, WARMUP_MS } from '../common.ts';

export async function phaseMedia(): Promise<void> {
  console.log(`\n## 4. Media: thumbnails at ${CONNECTIONS} connections, and the API's req/s while media is fetched (${ROUNDS} rounds)\n`);
  const launched = await launchMock();
  children.add(launched.child);
  const mock = Object.assign(launched.child, { output: launched.output });
  const origin = launched.origin;
  const readKey = await waitFor('mock', mock, async () => /^\s+read\s+(cgs_[0-9a-f]{64})$/m.exec(mock.output())?.[1]);
  await liftReadLimits(origin);
  const auth = { authorization: `Bearer ${readKey}` };
  const fetchJson = async (p: string) => JSON.parse((await request(origin, 'GET', BASE + p, auth)).body.toString()) as { data: Record<string, unknown>[] };
  // The thumbnails a page of creatives and assets shows (video stills and image thumbnails).
  const thumbs = new Set<string>();
  for (const row of [...(await fetchJson('/creatives?limit=100')).data, ...(await fetchJson('/assets?limit=100')).data]) {
    if (typeof row.thumbnailUrl === 'string') thumbs.add(new URL(row.thumbnailUrl).pathname);
  }
  const images = [...new Set((await fetchJson('/creatives?limit=100')).data.filter((c) => c.mediaType === 'image').map((c) => new URL(c.url as string).pathname))].slice(0, 20);
  const thumbPaths = [...thumbs];
  if (thumbPaths.length === 0 || images.length === 0) throw new Error('media bench: the demo account hands out no thumbnail or image');
  // Cold: each image drawn for the first time, one at a time.
  const cold: number[] = [];
  for (const p of images) {
    const t = performance.now();
    const res = await request(origin, 'GET', p);
    cold.push(performance.now() - t);
    if (res.status !== 200) throw new Error(`media bench: ${p}: ${res.status}`);
  }
  for (const p of thumbPaths) await request(origin, 'GET', p); // the thumbnails are kept from here on
  console.log(`${thumbPaths.length} thumbnails; ${images.length} 1024-pixel images drawn cold in p50 ${fmtMs(median(cold))} ms, max ${fmtMs(Math.max(...cold))} ms (one at a time, then kept)`);

  const api = (connections = CONNECTIONS) => ({ origin, paths: [BASE + LIST], headers: auth, connections, warmupMs: WARMUP_MS, durationMs: DURATION_MS });
  const media = (connections: number) => ({ origin, paths: thumbPaths, connections, warmupMs: WARMUP_MS, durationMs: DURATION_MS });
  const BROWSER = 6; // the connections a browser opens to one origin
  const res: Record<string, Measured[]> = { apiAlone: [], mediaAlone: [], apiWithMedia: [], mediaWithApi: [], apiWithBrowser: [], browserWithApi: [], apiWithApi: [], apiBeside: [] };
  const rows: (string | number)[][] = [];
  for (let round = 0; round < ROUNDS; round++) {
    const a = await load(mock.pid!, api());
    const m = await load(mock.pid!, media(CONNECTIONS));
    const [a2, m2] = await Promise.all([load(mock.pid!, api()), load(mock.pid!, media(CONNECTIONS))]);
    const [a3, m3] = await Promise.all([load(mock.pid!, api()), load(mock.pid!, media(BROWSER))]);
    // The same six connections asking for API pages instead: what any extra traffic costs the API.
    const [a4, b4] = await Promise.all([load(mock.pid!, api()), load(mock.pid!, api(BROWSER))]);
    res.apiWithApi!.push(a4);
    res.apiBeside!.push(b4);
    res.apiAlone!.push(a);
    res.mediaAlone!.push(m);
    res.apiWithMedia!.push(a2);
    res.mediaWithApi!.push(m2);
    res.apiWithBrowser!.push(a3);
    res.browserWithApi!.push(m3);
    rows.push(
      loadRow(`API alone (round ${round + 1})`, a),
      loadRow(`thumbnails alone, ${CONNECTIONS} conn.`, m),
      loadRow(`API, with thumbnails at ${CONNECTIONS} conn.`, a2),
      loadRow(`thumbnails at ${CONNECTIONS} conn., with the API`, m2),
      loadRow(`API, with thumbnails at ${BROWSER} conn.`, a3),
      loadRow(`thumbnails at ${BROWSER} conn., with the API`, m3),
      loadRow(`API, with API pages at ${BROWSER} more conn.`, a4),
    );
    console.log(`  round ${round + 1}: API alone ${fmtInt(a.rps)} req/s; thumbnails alone ${fmtInt(m.rps)} req/s p99 ${fmtMs(m.latencyMs.p99)} ms; together ${fmtInt(a2.rps)} + ${fmtInt(m2.rps)} req/s; API with ${BROWSER} media connections ${fmtInt(a3.rps)} req/s (media ${fmtInt(m3.rps)} req/s, p99 ${fmtMs(m3.latencyMs.p99)} ms)`);
  }
  console.log(`\n${table(LOAD_HEADER, rows)}\n`);
  const med = (k: string, f: (r: Measured) => number) => median(res[k]!.map(f));
  const mediaP99Worst = Math.max(...res.mediaAlone!.map((r) => r.latencyMs.p99));
  // Ratios within each round (measured one after the other), then their median.
  const ratio = (k: string) => median(res[k]!.map((r, i) => r.rps / res.apiAlone![i]!.rps));
  const withBrowser = ratio('apiWithBrowser');
  // API answers displaced per extra request served (per round, then the median): for a thumbnail
  // and for an API page asked by the same 6 extra connections.
  const displaced = (withKey: string, extraKey: string) => median(res[withKey]!.map((r, i) => (res.apiAlone![i]!.rps - r.rps) / res[extraKey]![i]!.rps));
  const perThumb = displaced('apiWithBrowser', 'browserWithApi');
  const perPage = displaced('apiWithApi', 'apiBeside');
  const withFull = ratio('apiWithMedia');
  const apiCost = med('apiAlone', (r) => r.serverUsPerReq);
  const mediaCost = med('mediaAlone', (r) => r.serverUsPerReq);
  const errors = Object.values(res).flat().reduce((n, r) => n + r.errors + r.non2xx, 0);
  const lines = [
    `- thumbnail p99 at ${CONNECTIONS} connections: **${fmtMs(mediaP99Worst)} ms** in the worst round (median ${fmtInt(med('mediaAlone', (r) => r.rps))} req/s; target < 10 ms, as for the API): ${verdict(mediaP99Worst < 10)}`,
    `- server CPU per request: a thumbnail ${fmtInt(mediaCost)} µs, a page of 50 creatives ${fmtInt(apiCost)} µs (a kept thumbnail costs no more than an API answer: ${verdict(mediaCost <= apiCost * 1.2)})`,
    `- the API's req/s while ${BROWSER} more connections (a browser's) fetch thumbnails without pause, over the API alone in the same round: **${withBrowser.toFixed(2)}** (median of the rounds; the thumbnails got ${fmtInt(med('browserWithApi', (r) => r.rps))} req/s, p99 ${fmtMs(med('browserWithApi', (r) => r.latencyMs.p99))} ms). Closed loops without pause take a share of the server's one thread whatever they ask: API answers displaced per request served beside them, a thumbnail ${perThumb.toFixed(2)}, an API page ${perPage.toFixed(2)} (for information: both move with the machine's other load)`,
    `- the API's req/s with thumbnails at ${CONNECTIONS} connections beside it (as many clients as the API's; the server's one thread is shared), over the API alone: ${withFull.toFixed(2)} (the API's p99 then ${fmtMs(med('apiWithMedia', (r) => r.latencyMs.p99))} ms; for information)`,
    `- ${images.length} 1024-pixel images drawn the first time: p50 ${fmtMs(median(cold))} ms, max ${fmtMs(Math.max(...cold))} ms (compressed off the event loop; kept afterwards)`,
    `- errors or non-2xx answers under load: ${errors}: ${verdict(errors === 0)}`,
  ];
  console.log(lines.join('\n'));
  verdicts.push(...lines);
  summary.push(
    `### Media: thumbnails (GET /media/…png, no key) beside GET /creatives?limit=50`,
    '',
    table(['load', 'req/s (median)', 'p50 ms', 'p99 ms (median)', 'p99 ms (worst round)'], [
      ['API alone, 50 conn.', 'apiAlone'],
      [`thumbnails alone, ${CONNECTIONS} conn.`, 'mediaAlone'],
      [`API with thumbnails at ${BROWSER} conn.`, 'apiWithBrowser'],
      [`thumbnails at ${BROWSER} conn. with the API`, 'browserWithApi'],
      [`API with API pages at ${BROWSER} more conn.`, 'apiWithApi'],
      [`API with thumbnails at ${CONNECTIONS} conn.`, 'apiWithMedia'],
      [`thumbnails at ${CONNECTIONS} conn. with the API`, 'mediaWithApi'],
    ].map(([label, k]) => [label!, fmtInt(med(k!, (r) => r.rps)), fmtMs(med(k!, (r) => r.latencyMs.p50)), fmtMs(med(k!, (r) => r.latencyMs.p99)), fmtMs(Math.max(...res[k!]!.map((r) => r.latencyMs.p99)))])),
    '',
    ...lines,
    '',
  );
  await stop(mock);
}
