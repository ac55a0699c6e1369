/** The entry of the size measurement (`npm run bench -- --only msw`): the in-process mock alone. */
export { createMockHandlers } from '../../../mock/adapters/msw/msw.ts';
