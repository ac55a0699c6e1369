/**
 * `npm run fuzz`: generated fuzzing of the public API from packages/contract/spec/openapi.yaml against the in-process
 * mock (packages/mock-core/proofs/fuzz/). Prints the figures (sequences, requests, invariant checks, 5xx, peak
 * heap, status per operation) and, on a failure, the shrunk request and response with the command
 * that replays it. Exit code 1 on a failure.
 *
 *   --runs N         sequences to generate (default 500)
 *   --seed X         fast-check seed (default 1)
 *   --max-steps N    longest sequence (default 40)
 *   --seconds S      stop generating after S seconds (default: no limit)
 *   --operations A,B only these operationIds
 *   --path P         replay one counterexample (printed with a failure; needs the same --seed and --runs)
 *   --strict         fail on the known bugs of packages/mock-core/proofs/fuzz/known-bugs.ts too
 */
import { parseArgs } from 'node:util';
import { operations } from '../../contract/spec/contract.ts';
import { KNOWN_BUGS } from './fuzz/known-bugs.ts';
import { formatFigures, runFuzz } from './fuzz/run.ts';

function fail(message: string): never {
  console.error(`fuzz: ${message}`);
  process.exit(2);
}

function integer(name: string, raw: string | undefined, fallback: number, min: number): number {
  if (raw === undefined) return fallback;
  const value = Number(raw);
  if (!/^\d+$/.test(raw) || !Number.isSafeInteger(value) || value < min) fail(`--${name} must be an integer >= ${min}, not ${JSON.stringify(raw)}`);
  return value;
}

let values: Record<string, string | boolean | undefined>;
try {
  ({ values } = parseArgs({
    options: {
      runs: { type: 'string' },
      seed: { type: 'string' },
      'max-steps': { type: 'string' },
      seconds: { type: 'string' },
      operations: { type: 'string' },
      path: { type: 'string' },
      strict: { type: 'boolean' },
    },
    strict: true,
    allowPositionals: false,
  }));
} catch (error) {
  fail(`${(error as Error).message}\nusage: npm run fuzz -- [--runs N] [--seed X] [--max-steps N] [--seconds S] [--operations A,B] [--path P] [--strict]`);
}

const runs = integer('runs', values.runs as string | undefined, 500, 1);
const seed = integer('seed', values.seed as string | undefined, 1, 0);
const maxSteps = integer('max-steps', values['max-steps'] as string | undefined, 40, 1);
const seconds = values.seconds === undefined ? undefined : integer('seconds', values.seconds as string, 0, 1);
const only = typeof values.operations === 'string' ? values.operations.split(',').map((s) => s.trim()).filter(Boolean) : undefined;
for (const id of only ?? []) if (!operations.has(id)) fail(`--operations: no operation ${id} in packages/contract/spec/openapi.yaml`);

const command = ['npm run fuzz --', `--runs ${runs}`, `--seed ${seed}`, `--max-steps ${maxSteps}`, ...(seconds ? [`--seconds ${seconds}`] : []), ...(only ? [`--operations ${only.join(',')}`] : []), ...(values.strict ? ['--strict'] : [])].join(' ');
console.log(`fuzz: ${command}`);
let lastPrint = Date.now();
const result = await runFuzz({
  seed,
  runs,
  maxSteps,
  strict: values.strict === true,
  ...(only ? { operations: only } : {}),
  ...(typeof values.path === 'string' ? { path: values.path } : {}),
  ...(seconds ? { timeLimitSeconds: seconds } : {}),
  onRun: (figures) => {
    if (Date.now() - lastPrint < 10_000) return;
    lastPrint = Date.now();
    console.log(`  … ${figures.sequences} sequences, ${figures.requests} requests, ${figures.invariantChecks} invariant checks, ${figures.fiveXX} 5xx`);
  },
});
console.log(formatFigures(result.figures));
if (Object.keys(result.figures.knownBugs).length > 0) {
  console.log('\nknown bugs (packages/mock-core/proofs/fuzz/known-bugs.ts):');
  for (const bug of KNOWN_BUGS) if (result.figures.knownBugs[bug.id]) console.log(`  ${bug.id}: ${bug.detail}`);
}
if (result.failure) {
  console.error(`\n${result.failure}`);
  process.exit(1);
}
console.log(`\nreproduce: ${command}`);
