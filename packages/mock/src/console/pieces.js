// Small pieces every view uses: statuses, JSON, thumbnails, toggles, copy buttons, the async and runner hooks, and the header's clock.
import { html, useCallback, useEffect, useState } from './vendor/preact-htm.js';
import { control, useLive } from './client.js';

// --- small pieces ------------------------------------------------------------------------------
const statusClass = (s) => {
  const v = String(s ?? '').toLowerCase();
  if (/^(2\d\d|approved|succeeded|settled|active|completed|ready|live|in_progress|success)$/.test(v)) return 'status ok';
  if (/^([45]\d\d|rejected|failed|revoked|expired|deleted|refused|not_sent|error|archived|stopped|cancelled|partial)$/.test(v)) return 'status bad';
  return 'status wait';
};
export const Status = ({ value }) => html`<span class=${statusClass(value)}>${String(value)}</span>`;
export const Json = ({ value, label }) => html`<pre aria-label=${label ?? 'JSON'} tabindex="0">${typeof value === 'string' ? value : JSON.stringify(value, null, 2)}</pre>`;
export const when = (iso) => (iso ? iso.replace('T', ' ').replace(/\.\d+Z$/, 'Z') : '—');

export function Thumb({ url, label }) {
  // Only media on the mock's own origin is shown: the console works offline and loads nothing else.
  let local = false;
  try {
    local = !!url && new URL(url, location.href).origin === location.origin;
  } catch {
    local = false;
  }
  // A video's own URL is no picture: only a still (png, jpg, webp, gif) goes in an <img>.
  const still = local && /\.(png|jpe?g|webp|gif)$/i.test(new URL(url, location.href).pathname);
  if (!still) return html`<span class="placeholder" role="img" aria-label=${`${label}: no local image`}>—</span>`;
  return html`<img class="thumb" src=${url} alt=${label} loading="lazy" />`;
}

/** A checkbox that shows its new state at once, while the change it makes is on its way. */
export function Toggle({ checked, label, onToggle }) {
  const [value, setValue] = useState(checked);
  useEffect(() => setValue(checked), [checked]);
  return html`<label><input type="checkbox" checked=${value} onChange=${(e) => {
    setValue(e.target.checked);
    onToggle(e.target.checked);
  }} /> ${label}</label>`;
}

export function CopyButton({ text, label }) {
  const [done, setDone] = useState(false);
  return html`<button type="button" class="secondary" aria-label=${label} onClick=${async () => {
    try {
      await navigator.clipboard.writeText(text);
    } catch {
      // a page without clipboard permission: the key is selectable on the page
    }
    setDone(true);
    setTimeout(() => setDone(false), 1500);
  }}>${done ? 'Copied' : 'Copy'}</button>`;
}

export function useAsync(load, deps) {
  const [state, setState] = useState({ data: undefined, error: undefined, loading: true });
  const reload = useCallback(() => {
    let alive = true;
    setState((s) => ({ ...s, loading: true }));
    load().then(
      (data) => alive && setState({ data, error: undefined, loading: false }),
      (error) => alive && setState({ data: undefined, error, loading: false }),
    );
    return () => {
      alive = false;
    };
  }, deps);
  useEffect(reload, [reload]);
  return [state, reload];
}

export const ErrorNote = ({ error }) => (error ? html`<p class="error" role="alert">${String(error.message ?? error)}</p>` : null);

/** Runs an action, then reports it in the page's status line. */
export function useRunner(setMessage) {
  return async (label, fn) => {
    try {
      const out = await fn();
      setMessage({ ok: true, text: `${label}: done` });
      return out;
    } catch (error) {
      setMessage({ ok: false, text: `${label}: ${error.message}` });
      return undefined;
    }
  };
}

// --- the header: accounts picker, the clock and its buttons --------------------------------------
export function Clock({ run }) {
  const [clock, setRead] = useState();
  const [, tick] = useState(0);
  const setClock = (c) => setRead({ ...c, readAt: performance.now() });
  useEffect(() => void control('GET', '/clock').then(setClock, () => {}), []);
  useLive('ready', (d) => setClock(d.clock));
  useLive('clock', setClock);
  // In real mode the mock's time runs on between readings: shown running, from the last reading.
  useEffect(() => {
    if (clock?.mode !== 'real') return undefined;
    const timer = setInterval(() => tick((n) => n + 1), 1000);
    return () => clearInterval(timer);
  }, [clock?.mode]);
  const shown = clock && clock.mode === 'real' ? new Date(Date.parse(clock.now) + (performance.now() - clock.readAt)).toISOString() : clock?.now;
  const move = (label, body) => run(label, async () => setClock(await control('POST', '/clock', body)));
  if (!clock) return html`<span>clock…</span>`;
  return html`<div class="clock" role="group" aria-label="Mock clock">
    <span>Clock</span><output aria-label="Clock time" data-testid="clock-now">${when(shown)}</output>
    <label>Mode <select aria-label="Clock mode" value=${clock.mode} onChange=${(e) => move('Clock mode', { mode: e.target.value })}>
      <option value="manual">manual</option><option value="real">real</option>
    </select></label>
    <button type="button" onClick=${() => move('+1 min', { advanceSeconds: 60 })}>+1 min</button>
    <button type="button" onClick=${() => move('+1 h', { advanceSeconds: 3600 })}>+1 h</button>
    <button type="button" onClick=${() => move('+1 day', { advanceSeconds: 86400 })}>+1 day</button>
    <button type="button" onClick=${() => move('Next task', { toNextTask: true })} disabled=${!clock.nextTaskAt} title=${clock.nextTaskAt ? `to ${clock.nextTaskAt}` : 'nothing scheduled'}>Next task</button>
    <span class="tasks" data-testid="clock-tasks" title=${clock.nextTaskAt ? `next task at ${clock.nextTaskAt}` : 'nothing scheduled'}>${clock.pendingTasks} scheduled</span>
  </div>`;
}
