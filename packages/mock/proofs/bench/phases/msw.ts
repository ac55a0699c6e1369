/** `npm run bench`, phase 7: the in-process mock (MSW). */
import { flags, start, summary, table, verdict, verdicts } from '../common.ts';

export async function phaseMsw(): Promise<void> {
  const requests = Math.max(100, Number(flags['msw-requests']));
  console.log(`\n## 7. In-process (MSW): one request at a time in Node, ${requests} requests per way (packages/mock/proofs/bench/msw.ts)\n`);
  const child = start('bench-msw', ['--import', 'tsx', 'packages/mock/proofs/bench/msw.ts', String(requests)]);
  const code = await new Promise<number | null>((resolve) => child.on('exit', resolve));
  const output = child.output().trim();
  console.log(output);
  const way = (name: string) => {
    const m = new RegExp(`^msw: ${name} median ([\\d.]+) ms p99 ([\\d.]+) ms`, 'm').exec(output);
    if (!m) throw new Error(`packages/mock/proofs/bench/msw.ts printed no ${name} figure (${code}):\n${output}`);
    return { p50: Number(m[1]), p99: Number(m[2]) };
  };
  const pipeline = way('pipeline');
  const answer = way('mock');
  const mswOwn = way('msw');
  const handler = way('handler');
  const fetched = way('fetch');
  const fmtUs = (ms: number) => `${(ms * 1000).toFixed(0)} µs`;
  const rows = [
    ['runPipeline alone (the core)', fmtUs(pipeline.p50), fmtUs(pipeline.p99)],
    ["the in-process mock's answer: the adapter's resolver (Request in, the pipeline, Response out)", fmtUs(answer.p50), fmtUs(answer.p99)],
    ["for comparison, msw with a plain `http.all` handler answering the same bytes at once (cookies parsed, path matched)", fmtUs(mswOwn.p50), fmtUs(mswOwn.p99)],
    ["the handler path: msw's getResponse with the mock's handlers", fmtUs(handler.p50), fmtUs(handler.p99)],
    ["fetch through msw/node's setupServer (what a test's client sees)", fmtUs(fetched.p50), fmtUs(fetched.p99)],
  ];
  const table_ = table(['GET /creatives?limit=50, one at a time', 'median', 'p99'], rows);
  const lines = [
    `- The in-process mock answers a request through msw (getResponse with its handlers: msw's matching, the adapter, the pipeline, the Response) in a median **${fmtUs(handler.p50)}** (target < 200 µs): ${verdict(handler.p50 < 0.2)}. Of it: the adapter's resolver ${fmtUs(answer.p50)}, the core's runPipeline ${fmtUs(pipeline.p50)}; a plain \`http.all\` handler answering fixed bytes costs msw ${fmtUs(mswOwn.p50)}, which the mock's prefix handlers avoid.`,
    `- A \`fetch\` through msw/node's interceptor (what a test's client sees): ${fmtUs(fetched.p50)} median (for information: the interceptor's share is msw's).`,
  ];
  const bundle = /^msw: bundle (\d+) bytes gzip (\d+) bytes/m.exec(output);
  const kib = (n: number) => `${(n / 1024).toFixed(0)} KiB`;
  lines.push(bundle ? `- Browser bundle of the in-process mock (createMockHandlers and all it imports, msw's core included; esbuild, minified ESM): **${kib(Number(bundle[1]))}**, **${kib(Number(bundle[2]))} gzip**.` : `- Browser bundle of the in-process mock: not built (${/^msw: bundle failed: (.*)$/m.exec(output)?.[1] ?? 'no figure'}): FAIL`);
  console.log(`${table_}\n\n${lines.join('\n')}`);
  verdicts.push(...lines);
  summary.push('### In-process (MSW)', '', table_, '', ...lines, '');
}
