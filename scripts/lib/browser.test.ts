import { afterEach, describe, expect, it } from 'vitest';
import { CHROMIUM_ENV, chromiumExecutable, launchOptions } from './browser.ts';

describe('the browser module', () => {
  const saved = process.env[CHROMIUM_ENV];
  afterEach(() => {
    if (saved === undefined) delete process.env[CHROMIUM_ENV];
    else process.env[CHROMIUM_ENV] = saved;
  });

  it(`launches the binary ${CHROMIUM_ENV} names, headless, without Chromium's background traffic`, () => {
    process.env[CHROMIUM_ENV] = process.execPath; // any existing file stands for a system Chrome here
    expect(chromiumExecutable()).toBe(process.execPath);
    const options = launchOptions();
    expect(options.executablePath).toBe(process.execPath);
    expect(options.headless).toBe(true);
    expect(options.args).toEqual(expect.arrayContaining(['--no-sandbox', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--no-first-run']));
  });

  it(`refuses a ${CHROMIUM_ENV} that does not exist rather than falling back`, () => {
    process.env[CHROMIUM_ENV] = '/nonexistent/chromium';
    expect(() => chromiumExecutable()).toThrow(`${CHROMIUM_ENV}=/nonexistent/chromium: no such file`);
  });
});
