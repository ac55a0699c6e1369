/** Control plane, leases: listLeases, acquireLease, releaseLease (the table: packages/mock-core/src/core/leases.ts). */
import { DEFAULT_WAIT_SECONDS, type LeaseRequest } from '../core/leases.ts';
import { ControlError, type ControlHandlers } from './types.ts';

export const leaseHandlers: ControlHandlers = {
  listLeases(_request, { services }) {
    return { status: 200, body: services.leases.list() };
  },

  async acquireLease(request, { services, signal }) {
    const body = request.body as Omit<LeaseRequest, 'signal'>;
    const lease = await services.leases.acquire({ ...body, ...(signal ? { signal } : {}) });
    if (!lease) {
      const held = services.leases.list().held;
      const holders = held.length === 0 ? 'the requests ahead of it' : held.map((h) => `${h.holder} (${h.mode})`).join(', ');
      throw new ControlError(409, 'LEASE_UNAVAILABLE', `The ${body.mode} lease was not granted within ${body.waitSeconds ?? DEFAULT_WAIT_SECONDS} s: held back by ${holders}. Ask again.`);
    }
    return { status: 201, body: lease };
  },

  releaseLease(request, { services }) {
    if (!services.leases.release(request.params.leaseId!)) throw new ControlError(404, 'LEASE_NOT_FOUND', `No lease ${request.params.leaseId} is held (never granted, released, or expired).`);
    return { status: 204 };
  },
};
