/**
 * The lease table behind the control plane's leases (packages/mock-core/src/control/leases.ts; packages/contract/spec/mock-control.yaml,
 * tag `leases`). Several test runners may share one mock, and with it its clock and its global
 * settings: a test that needs the mock to itself takes the `exclusive` lease, every other test a
 * `shared` one. A readers-writer lock served in arrival order: a shared lease is granted while no
 * exclusive one is held or awaited before it, the exclusive lease once nothing else is held.
 *
 * Leases are advisory (no request of anyone is refused because of one) and run in real time
 * (`realTimeout` of packages/mock-core/src/core/clock.ts): a request waits up to `waitSeconds`, and a lease ends by itself
 * `ttlSeconds` after its grant, so a runner that died holds nothing for long.
 */
import { randomHex } from '../../../contract/platform/crypto.ts';
import { realTimeout } from './clock.ts';

export type LeaseMode = 'shared' | 'exclusive';

export interface Lease {
  leaseId: string;
  mode: LeaseMode;
  holder: string;
  ttlSeconds: number;
}

export interface LeaseRequest {
  mode: LeaseMode;
  holder?: string;
  ttlSeconds?: number;
  waitSeconds?: number;
  /** Aborted when the asker went away: it leaves the queue. */
  signal?: AbortSignal;
}

/** `(ms, run) => cancel`: real time in the mock, a fake in unit tests. */
export type Timer = (ms: number, run: () => void) => () => void;

export const DEFAULT_TTL_SECONDS = 300;
export const DEFAULT_WAIT_SECONDS = 30;

interface Held {
  lease: Lease;
  cancelExpiry: () => void;
}

interface Waiter {
  mode: LeaseMode;
  holder: string;
  ttlSeconds: number;
  settle: (lease: Lease | undefined) => void;
}

export class LeaseTable {
  private readonly held = new Map<string, Held>();
  private readonly queue: Waiter[] = [];

  constructor(
    private readonly timer: Timer = realTimeout,
    private readonly newId: () => string = () => `lse_${randomHex(8)}`,
  ) {}

  /** The lease once granted, or undefined when `waitSeconds` passed first (or the asker left). */
  acquire(request: LeaseRequest): Promise<Lease | undefined> {
    const holder = request.holder ?? 'anonymous';
    const ttlSeconds = request.ttlSeconds ?? DEFAULT_TTL_SECONDS;
    const waitSeconds = request.waitSeconds ?? DEFAULT_WAIT_SECONDS;
    if (this.queue.length === 0 && this.grantable(request.mode)) return Promise.resolve(this.grant(request.mode, holder, ttlSeconds));
    if (waitSeconds <= 0 || request.signal?.aborted) return Promise.resolve(undefined);
    return new Promise((resolve) => {
      let cancelWait = (): void => {};
      const leave = (): void => {
        const index = this.queue.indexOf(waiter);
        if (index < 0) return;
        this.queue.splice(index, 1);
        waiter.settle(undefined);
        this.serve(); // an exclusive request that left may have held shared ones back
      };
      const waiter: Waiter = {
        mode: request.mode,
        holder,
        ttlSeconds,
        settle: (lease) => {
          cancelWait();
          request.signal?.removeEventListener('abort', leave);
          resolve(lease);
        },
      };
      this.queue.push(waiter);
      cancelWait = this.timer(waitSeconds * 1000, leave);
      request.signal?.addEventListener('abort', leave, { once: true });
    });
  }

  /** Ends a held lease; false when no lease with this id is held. */
  release(leaseId: string): boolean {
    const entry = this.held.get(leaseId);
    if (!entry) return false;
    entry.cancelExpiry();
    this.held.delete(leaseId);
    this.serve();
    return true;
  }

  list(): { held: Lease[]; waiting: { mode: LeaseMode; holder: string }[] } {
    return {
      held: [...this.held.values()].map((h) => ({ ...h.lease })),
      waiting: this.queue.map((w) => ({ mode: w.mode, holder: w.holder })),
    };
  }

  /** Cancels every timer; waiting requests get nothing (the mock is closing). */
  dispose(): void {
    for (const entry of this.held.values()) entry.cancelExpiry();
    this.held.clear();
    for (const waiter of this.queue.splice(0)) waiter.settle(undefined);
  }

  private grantable(mode: LeaseMode): boolean {
    if (mode === 'exclusive') return this.held.size === 0;
    for (const entry of this.held.values()) if (entry.lease.mode === 'exclusive') return false;
    return true;
  }

  private grant(mode: LeaseMode, holder: string, ttlSeconds: number): Lease {
    const lease: Lease = { leaseId: this.newId(), mode, holder, ttlSeconds };
    const cancelExpiry = this.timer(ttlSeconds * 1000, () => this.release(lease.leaseId));
    this.held.set(lease.leaseId, { lease, cancelExpiry });
    return { ...lease };
  }

  /** Grants waiting requests in arrival order, up to the first that cannot be granted yet. */
  private serve(): void {
    while (this.queue.length > 0 && this.grantable(this.queue[0]!.mode)) {
      const waiter = this.queue.shift()!;
      waiter.settle(this.grant(waiter.mode, waiter.holder, waiter.ttlSeconds));
    }
  }
}
