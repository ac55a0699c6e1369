/**
 * An insertion-ordered collection with O(page) pagination.
 *
 * A page scans from the cursor's position and stops after `limit` matches or after a bounded
 * number of rows (`scanBudget`), whichever comes first. A page therefore costs the same with 100
 * rows as with 100,000, and a selective filter yields sparse (even empty) pages before the end,
 * exactly as the interface warns clients to expect: `nextCursor` null is the only end signal.
 */

export interface PageRequest<T> {
  /**
   * Absolute index (in insertion order) of the next row to visit; undefined for the first page.
   * Absolute, so rows appended during a walk never shift a newest-first walk.
   */
  from: number | undefined;
  limit: number;
  direction: 'asc' | 'desc';
  filter: (item: T) => boolean;
  /** Rows scanned at most for this page (default: 4 × limit + 100). */
  scanBudget?: number;
}

export interface Page<T> {
  items: T[];
  /** Absolute index of the next row to visit, or null at the end. */
  next: number | null;
}

// One process-wide sequence for `Collection.version`: a new collection or a change always takes a
// number no collection has had before, so a stamp (the highest version among some collections)
// never repeats once any of them changes, is replaced or is created afresh (a reset).
let versions = 0;

export class Collection<T> {
  private readonly byId = new Map<string, T>();
  private readonly order: string[] = [];
  // A true private field: not an own property, so structural comparisons of two collections with
  // the same rows (tests, the --state round trip) still see them as equal.
  #version = ++versions;

  /** Bumped (from the process-wide sequence) by every change; caches of derived bytes key on it. */
  get version(): number {
    return this.#version;
  }

  get size(): number {
    return this.order.length;
  }

  get(id: string): T | undefined {
    return this.byId.get(id);
  }

  has(id: string): boolean {
    return this.byId.has(id);
  }

  /** Insert or replace; a new id is appended to the order. */
  set(id: string, value: T): void {
    if (!this.byId.has(id)) this.order.push(id);
    this.byId.set(id, value);
    this.#version = ++versions;
  }

  *values(): IterableIterator<T> {
    for (const id of this.order) yield this.byId.get(id)!;
  }

  ids(): readonly string[] {
    return this.order;
  }

  page(request: PageRequest<T>): Page<T> {
    const { limit, direction, filter } = request;
    const total = this.order.length;
    const step = direction === 'asc' ? 1 : -1;
    const budget = request.scanBudget ?? limit * 4 + 100;
    const items: T[] = [];
    let index = request.from ?? (direction === 'asc' ? 0 : total - 1);
    if (direction === 'desc') index = Math.min(index, total - 1);
    let scanned = 0;
    const inRange = (i: number) => i >= 0 && i < total;
    while (inRange(index) && items.length < limit && scanned < budget) {
      const item = this.byId.get(this.order[index]!)!;
      if (filter(item)) items.push(item);
      index += step;
      scanned++;
    }
    return { items, next: inRange(index) ? index : null };
  }
}
