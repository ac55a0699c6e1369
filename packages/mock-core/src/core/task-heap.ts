/** The clocks' task heap (packages/mock-core/src/core/clock.ts): tasks by due time, ties in scheduling order. */

export interface Scheduled {
  readonly id: number;
  readonly at: number;
  cancel(): void;
}

interface Task {
  id: number;
  at: number;
  seq: number;
  run: () => void;
  cancelled: boolean;
}

/** A binary min-heap ordered by (at, seq), so ties run in scheduling order. */
export class TaskHeap {
  private readonly items: Task[] = [];
  private seq = 0;
  private nextId = 1;
  /** A new task due at `at`; the handle cancels it. */
  add(at: number, run: () => void): Scheduled {
    const task: Task = { id: this.nextId++, at, seq: this.seq++, run, cancelled: false };
    this.push(task);
    return {
      id: task.id,
      at,
      cancel: () => {
        task.cancelled = true;
      },
    };
  }
  /** When the earliest task not cancelled is due, or undefined when none is (a cancelled task never runs: it is dropped now). */
  nextDue(): number | undefined {
    for (let top = this.peek(); top; top = this.peek()) {
      if (!top.cancelled) return top.at;
      this.pop();
    }
    return undefined;
  }
  get size(): number {
    return this.items.length;
  }
  peek(): Task | undefined {
    return this.items[0];
  }
  push(task: Task): void {
    const a = this.items;
    a.push(task);
    let i = a.length - 1;
    while (i > 0) {
      const parent = (i - 1) >> 1;
      if (!before(a[i]!, a[parent]!)) break;
      [a[i], a[parent]] = [a[parent]!, a[i]!];
      i = parent;
    }
  }
  pop(): Task | undefined {
    const a = this.items;
    const top = a[0];
    const last = a.pop();
    if (a.length > 0 && last) {
      a[0] = last;
      let i = 0;
      for (;;) {
        const l = 2 * i + 1;
        const r = l + 1;
        let m = i;
        if (l < a.length && before(a[l]!, a[m]!)) m = l;
        if (r < a.length && before(a[r]!, a[m]!)) m = r;
        if (m === i) break;
        [a[i], a[m]] = [a[m]!, a[i]!];
        i = m;
      }
    }
    return top;
  }
}

function before(x: Task, y: Task): boolean {
  return x.at < y.at || (x.at === y.at && x.seq < y.seq);
}
