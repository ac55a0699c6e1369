#!/usr/bin/env node
/**
 * cgs-mock: the stateful mock of the package, with every flag of `npm start` (packages/mock/src/node/main.ts):
 * `cgs-mock --port 4010 --host 127.0.0.1 --seed 42 --clock manual --state mock-state.json`.
 * The server's packages are the mock package's dependencies (D279); the check stays for an install that lost one.
 */
import { requirePackages, SERVER_PACKAGES } from '../src/help-requires.ts';

requirePackages('cgs-mock', SERVER_PACKAGES);
await import('../src/node/main.ts');
