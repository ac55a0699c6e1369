/**
 * Injected defects: named contract violations the mock can be started with (`--defect NAME`,
 * repeatable), so that the conformance suite can prove it catches each one. This module only names
 * and parses them; the pipeline stages and handlers consult `services.defects`.
 */

/** A defect's name: lower-case words joined by `-`, `_` or `.` (e.g. `etag-weak`). */
export type DefectName = string;

/** The defects a mock process runs with (empty: a conforming mock). */
export type Defects = Set<DefectName>;

const NAME = /^[a-z0-9]+(?:[-_.][a-z0-9]+)*$/;

export class DefectNameError extends Error {}

/** The set of defects from `--defect` values; each value may also list several, comma-separated. */
export function parseDefects(values: readonly string[]): Defects {
  const out: Defects = new Set();
  for (const value of values) {
    for (const part of value.split(',')) {
      const name = part.trim();
      if (name === '') continue;
      if (!NAME.test(name)) throw new DefectNameError(`--defect ${JSON.stringify(name)}: a defect name is lower-case letters and digits joined by -, _ or .`);
      out.add(name);
    }
  }
  return out;
}
