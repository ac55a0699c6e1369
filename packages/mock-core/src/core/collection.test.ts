import { describe, expect, it } from 'vitest';
import { Collection } from './collection.ts';

function numbers(n: number): Collection<number> {
  const c = new Collection<number>();
  for (let i = 0; i < n; i++) c.set(`id${i}`, i);
  return c;
}

function walk(c: Collection<number>, direction: 'asc' | 'desc', limit: number, filter: (x: number) => boolean = () => true): number[][] {
  const pages: number[][] = [];
  let from: number | undefined;
  for (;;) {
    const page = c.page({ from, limit, direction, filter });
    pages.push(page.items);
    if (page.next === null) return pages;
    from = page.next;
  }
}

describe('Collection.page', () => {
  it('walks every row exactly once, in both directions', () => {
    const c = numbers(23);
    expect(walk(c, 'asc', 5).flat()).toEqual([...Array(23).keys()]);
    expect(walk(c, 'desc', 5).flat()).toEqual([...Array(23).keys()].reverse());
  });

  it('is O(page): a selective filter gives sparse and empty pages before the end, never a lost row', () => {
    const c = numbers(2000);
    const pages = walk(c, 'asc', 10, (x) => x % 500 === 0);
    expect(pages.flat()).toEqual([0, 500, 1000, 1500]);
    expect(pages.some((p) => p.length === 0)).toBe(true);
  });

  it('an append during a newest-first walk does not shift it', () => {
    const c = numbers(10);
    const first = c.page({ from: undefined, limit: 4, direction: 'desc', filter: () => true });
    c.set('new', 99);
    const second = c.page({ from: first.next!, limit: 4, direction: 'desc', filter: () => true });
    expect(first.items).toEqual([9, 8, 7, 6]);
    expect(second.items).toEqual([5, 4, 3, 2]);
  });

  it('replacing a value keeps its place', () => {
    const c = numbers(3);
    c.set('id1', 42);
    expect([...c.values()]).toEqual([0, 42, 2]);
  });
});
