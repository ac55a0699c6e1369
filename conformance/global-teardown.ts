/** After the run: stop the mock global-setup.ts started (its process group, by the id it recorded). */
export default async function globalTeardown(): Promise<void> {
  const pid = Number(process.env['CONFORMANCE_MOCK_PID']);
  if (!Number.isInteger(pid) || pid <= 0) return;
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
  delete process.env['CONFORMANCE_MOCK_PID'];
}
