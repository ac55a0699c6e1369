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

export class Collection<T> {
  private readonly byId = new Map<string, T>();
  private readonly order: string[] = [];

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
