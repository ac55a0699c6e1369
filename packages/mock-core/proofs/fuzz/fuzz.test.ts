/**
 * The generated fuzz (packages/mock-core/proofs/fuzz/), short and seeded inside `npm test`: the generators
 * produce what they claim (valid bodies are valid by the document, every mutation breaks the body),
 * and a seeded run of sequences against the in-process mock finds no 5xx, no response outside the
 * document, no defect let through and no broken state invariant. `npm run fuzz` runs it at size.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { operationsList } from '../../../contract/spec/contract.ts';
import { validatorFor } from '../../../contract/spec/contract.ts';
import { applySite, conditionalFields, formatField, mutate, mutationSites } from './mutate.ts';
import { formatFigures, runFuzz } from './run.ts';
import { nodeAt, placeholders, valueArb } from './schema.ts';

/** Verified seed of the short run (see the lead's README for the full run's figures). */
const FUZZ_SEED = 20_260_101;

const withBody = operationsList.filter((op) => op.requestBody).map((op) => [op.operationId, op.requestBody!.schemaPointer] as const);

describe('request generators (from packages/contract/spec/openapi.yaml)', () => {
  it.each(withBody)('%s: generated bodies are valid by the document, or break only its conditional rules', (_id, pointer) => {
    const node = nodeAt(pointer);
    const validate = validatorFor(pointer);
    const conditional = conditionalFields(node);
    for (const value of fc.sample(valueArb(node, { location: 'body' }), { numRuns: 150, seed: 7 })) {
      const ok = validate(placeholders(value));
      if (!ok) {
        // Only a conditional rule (RunCreate: imageSize or referenceSource with modality video) may fail.
        expect(conditional.length, JSON.stringify(validate.errors)).toBeGreaterThan(0);
        expect(validate.errors!.every((e) => ['if', 'not', 'then', 'anyOf', 'required'].includes(e.keyword)), JSON.stringify(validate.errors)).toBe(true);
      }
    }
  });

  it.each(withBody)('%s: every mutation site breaks the body and names the field it broke', (_id, pointer) => {
    const node = nodeAt(pointer);
    const validate = validatorFor(pointer);
    const values = fc.sample(valueArb(node, { location: 'body' }), { numRuns: 12, seed: 11 }).filter((v) => validate(placeholders(v)));
    let mutated = 0;
    for (const value of values) {
      const sites = mutationSites(node, value);
      sites.forEach((site, i) => {
        const mutation = applySite(value, site, i);
        if (!mutation) return; // no way to break this site (every candidate was valid): not a defect
        mutated++;
        expect(validate(placeholders(mutation.value)), `${site.kind} at ${formatField(site.at)}`).toBe(false);
        expect(formatField(mutation.field)).not.toBe('');
      });
    }
    expect(mutated).toBeGreaterThan(0);
    // mutate() picks one site of a value and keeps it only when the whole body became invalid.
    const value = values[0]!;
    const mutation = mutate(node, value, 0, 0);
    if (mutation) expect(validate(placeholders(mutation.value))).toBe(false);
  });
});

describe('fuzz: a short seeded run', () => {
  it(`seed ${FUZZ_SEED}: no 5xx, responses conform, defects refused naming the field, invariants hold after every step`, async () => {
    const { figures, failure } = await runFuzz({ seed: FUZZ_SEED, runs: 60, maxSteps: 25 });
    expect(failure, failure).toBeUndefined();
    expect(figures.fiveXX, formatFigures(figures)).toBe(0);
    expect(figures.requests).toBeGreaterThan(200);
    expect(figures.defective).toBeGreaterThan(50);
    expect(figures.invariantSweeps).toBe(figures.steps);
    // Most operations are reached in a run this short (all of them at size).
    const reached = operationsList.filter((op) => figures.byOperation[op.operationId]).length;
    expect(reached, formatFigures(figures)).toBeGreaterThanOrEqual(Math.floor(operationsList.length * 0.9));
  }, 120_000);
});
