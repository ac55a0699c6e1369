/** The defect catalogue, idempotency (kind `idempotency`). */
import { withRequestHeaders } from '../exchange.ts';
import { saltKey, shortHash } from './helpers.ts';
import { type DefectEntry } from './model.ts';

export const idempotencyDefects: readonly DefectEntry[] = [
  {
    name: 'idempotency-replay-executes',
    kind: 'idempotency',
    description: 'a retry under the same Idempotency-Key executes again (the key is never matched)',
    rules: ['IDEM-006', 'IDEM-007'],
    via: 'proxy',
    request: (q, { memory }) => {
      const key = q.headers['idempotency-key'];
      return key === undefined ? q : withRequestHeaders(q, { 'idempotency-key': saltKey(key, `r${memory.next()}`) });
    },
  },
  {
    name: 'idempotency-reuse-accepted',
    kind: 'idempotency',
    description: 'the same Idempotency-Key with another body executes instead of 409 IDEMPOTENCY_KEY_REUSED',
    rules: ['IDEM-008'],
    via: 'proxy',
    request: (q) => {
      const key = q.headers['idempotency-key'];
      return key === undefined ? q : withRequestHeaders(q, { 'idempotency-key': saltKey(key, `b${shortHash(`${q.url} ${q.body}`)}`) });
    },
  },
  {
    name: 'idempotency-key-not-required',
    kind: 'idempotency',
    description: 'a write that requires an Idempotency-Key succeeds without one',
    rules: ['IDEM-005', 'IDEM-001', 'IDEM-002'],
    via: 'proxy',
    request: (q, { operation, memory }) =>
      operation?.idempotencyKey === 'required' && q.headers['idempotency-key'] === undefined
        ? withRequestHeaders(q, { 'idempotency-key': `proxy-added-${Date.now().toString(36)}-${memory.next()}` })
        : q,
  },
  {
    name: 'idempotency-replay-status',
    kind: 'idempotency',
    description: 'a replayed answer comes back 200 instead of the stored 201/202',
    rules: ['IDEM-006'],
    via: 'proxy',
    response: (r) => (r.headers['idempotent-replayed'] === 'true' && (r.status === 201 || r.status === 202) ? { ...r, status: 200 } : r),
  },
  {
    name: 'idempotency-malformed-accepted',
    kind: 'idempotency',
    description: 'a malformed Idempotency-Key is accepted (as if it were a well-formed one)',
    rules: ['IDEM-004'],
    via: 'proxy',
    request: (q) => {
      const key = q.headers['idempotency-key'];
      return key !== undefined && !/^(?:[A-Za-z0-9\-_.:~]{1,255}|"[A-Za-z0-9\-_.:~]{1,255}")$/.test(key) ? withRequestHeaders(q, { 'idempotency-key': `fixed-${shortHash(key)}` }) : q;
    },
  },
];
