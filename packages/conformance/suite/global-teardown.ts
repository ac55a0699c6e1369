/** After the run: stop the mocks global-setup.ts started (their process groups, by the ids it recorded). */
export default async function globalTeardown(): Promise<void> {
  const pids = (process.env['CONFORMANCE_MOCK_PID'] ?? '').split(',').map(Number).filter((pid) => Number.isInteger(pid) && pid > 0);
  await Promise.all(pids.map(stop));
  delete process.env['CONFORMANCE_MOCK_PID'];
}

async function stop(pid: number): Promise<void> {
  const alive = (): boolean => {
    try {
      process.kill(-pid, 0);
      return true;
    } catch {
      return false;
    }
  };
  try {
    process.kill(-pid, 'SIGTERM');
  } catch {
    return;
  }
  const deadline = Date.now() + 5_000;
  while (alive() && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 100));
  if (alive()) process.kill(-pid, 'SIGKILL');
}
