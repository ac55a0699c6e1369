/** A small seeded generator (mulberry32): what is drawn from it repeats for one seed (the exams' batteries and schedules, the soak's clients). */
export function seeded(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** `n` hexadecimal characters from the generator. */
export function hexFrom(random: () => number, n: number): string {
  let out = '';
  while (out.length < n) out += Math.floor(random() * 16).toString(16);
  return out;
}
