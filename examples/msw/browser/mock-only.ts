/** The entry of the size measurement (`npm run bench -- --only msw`): the in-process mock alone. */
export { createMockHandlers } from '../../../packages/msw/src/msw.ts';
