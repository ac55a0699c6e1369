#!/usr/bin/env node
/**
 * cgs-mock: the stateful mock of the package, with every flag of `npm start` (mock/adapters/node/main.ts):
 * `cgs-mock --port 4010 --host 127.0.0.1 --seed 42 --clock manual --state mock-state.json`.
 */
import '../mock/adapters/node/main.ts';
