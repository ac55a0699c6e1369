// The mock's console: a client of the control plane (/__mock, spec/mock-control.yaml) and of the
// public API (/api/public/v1, spec/openapi.yaml, with a read key the console makes for itself
// through the control plane), and of nothing else. Plain ES module, no build step; the UI library
// is htm's Preact build, served by the mock from node_modules (mock/console/serve.ts).
import { html, render, useCallback, useEffect, useRef, useState } from './vendor/preact-htm.js';

const API = '/api/public/v1';
const TOKEN_KEY = 'cgs-console-control-token';
const PAGE = 25;

// --- the control token (`--control-token`): ?token=… once, then kept for the tab --------------
{
  const params = new URLSearchParams(location.search);
  if (params.has('token')) {
    sessionStorage.setItem(TOKEN_KEY, params.get('token') ?? '');
    params.delete('token');
    history.replaceState(null, '', `${location.pathname}${params.size ? `?${params}` : ''}${location.hash}`);
  }
}
const controlHeaders = () => {
  const token = sessionStorage.getItem(TOKEN_KEY);
  return token ? { authorization: `Bearer ${token}` } : {};
};

class Problem extends Error {
  constructor(status, body) {
    super(body && body.detail ? `${status} ${body.code ?? ''}: ${body.detail}` : `HTTP ${status}`);
    this.status = status;
    this.body = body;
  }
}

async function readJson(res) {
  const text = await res.text();
  if (!text) return undefined;
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

/** A control-plane request (JSON in, JSON out; a problem throws). */
async function control(method, path, body) {
  const headers = { ...controlHeaders() };
  if (body !== undefined) headers['content-type'] = 'application/json';
  const res = await fetch(`/__mock${path}`, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
  const data = await readJson(res);
  if (!res.ok) throw new Problem(res.status, data);
  return data;
}

// --- the console's own read key per account (made through the control plane, kept for the tab) ---
const keyPromises = new Map();
const madeHere = new Map(); // accountId → key made by this page (the account read before may not list it yet)
function consoleKey(account) {
  const stored = JSON.parse(sessionStorage.getItem(`cgs-console-key:${account.accountId}`) ?? 'null');
  const listed = stored && account.keys.find((k) => k.keyId === stored.keyId);
  if (stored && (listed ? listed.status === 'active' : madeHere.get(account.accountId) === stored.key)) return Promise.resolve(stored.key);
  if (!keyPromises.has(account.accountId)) {
    keyPromises.set(
      account.accountId,
      control('POST', `/accounts/${encodeURIComponent(account.accountId)}/keys`, { name: 'console (read)', scopes: ['read', 'runs:read'], expiresInDays: null }).then(
        (created) => {
          sessionStorage.setItem(`cgs-console-key:${account.accountId}`, JSON.stringify({ keyId: created.keyId, key: created.key }));
          madeHere.set(account.accountId, created.key);
          keyPromises.delete(account.accountId);
          return created.key;
        },
        (error) => {
          keyPromises.delete(account.accountId);
          throw error;
        },
      ),
    );
  }
  return keyPromises.get(account.accountId);
}

/** A public API read with the account's console key: { body, etag }. */
async function api(account, path, query = {}) {
  const key = await consoleKey(account);
  const search = new URLSearchParams(Object.entries(query).filter(([, v]) => v !== undefined && v !== '' && v !== null).map(([k, v]) => [k, String(v)]));
  const res = await fetch(`${API}${path}${search.size ? `?${search}` : ''}`, { headers: { authorization: `Bearer ${key}` } });
  const body = await readJson(res);
  if (!res.ok) throw new Problem(res.status, body);
  return { body, etag: res.headers.get('etag') };
}

/** Runs a public write operation's handler as another actor (POST /__mock/accounts/{id}/actions). */
function act(accountId, actor, operationId, pathParams, body) {
  return control('POST', `/accounts/${encodeURIComponent(accountId)}/actions`, { actor: { kind: actor }, operationId, pathParams, ...(body !== undefined ? { body } : {}) });
}

// --- the live stream (GET /__mock/stream), read with fetch so that a control token can be sent ---
const bus = new EventTarget();
function useLive(name, handler) {
  const ref = useRef(handler);
  ref.current = handler;
  useEffect(() => {
    const listener = (e) => ref.current(e.detail);
    bus.addEventListener(name, listener);
    return () => bus.removeEventListener(name, listener);
  }, [name]);
}

function openStream(accountId, setLive) {
  const controller = new AbortController();
  let stopped = false;
  const connect = async () => {
    try {
      const res = await fetch(`/__mock/stream${accountId ? `?accountId=${encodeURIComponent(accountId)}` : ''}`, { headers: controlHeaders(), signal: controller.signal });
      if (!res.ok || !res.body) throw new Error(`stream: HTTP ${res.status}`);
      setLive(true);
      const reader = res.body.pipeThrough(new TextDecoderStream()).getReader();
      let buffer = '';
      for (;;) {
        const { value, done } = await reader.read();
        if (done) break;
        buffer += value;
        let end;
        while ((end = buffer.indexOf('\n\n')) >= 0) {
          const block = buffer.slice(0, end);
          buffer = buffer.slice(end + 2);
          const event = /^event: (.*)$/m.exec(block)?.[1];
          const data = /^data: (.*)$/m.exec(block)?.[1];
          if (event && data) bus.dispatchEvent(new CustomEvent(event, { detail: JSON.parse(data) }));
        }
      }
    } catch {
      // aborted, or the mock went away: reconnect below unless stopped
    }
    setLive(false);
    if (!stopped) setTimeout(connect, 1000);
  };
  connect();
  return () => {
    stopped = true;
    controller.abort();
  };
}

// --- small pieces ------------------------------------------------------------------------------
const statusClass = (s) => {
  const v = String(s ?? '').toLowerCase();
  if (/^(2\d\d|approved|succeeded|settled|active|completed|ready|live|in_progress|success)$/.test(v)) return 'status ok';
  if (/^([45]\d\d|rejected|failed|revoked|expired|deleted|refused|not_sent|error|archived|stopped|cancelled|partial)$/.test(v)) return 'status bad';
  return 'status wait';
};
const Status = ({ value }) => html`<span class=${statusClass(value)}>${String(value)}</span>`;
const Json = ({ value, label }) => html`<pre aria-label=${label ?? 'JSON'} tabindex="0">${typeof value === 'string' ? value : JSON.stringify(value, null, 2)}</pre>`;
const when = (iso) => (iso ? iso.replace('T', ' ').replace(/\.\d+Z$/, 'Z') : '—');

function Thumb({ url, label }) {
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
function Toggle({ checked, label, onToggle }) {
  const [value, setValue] = useState(checked);
  useEffect(() => setValue(checked), [checked]);
  return html`<label><input type="checkbox" checked=${value} onChange=${(e) => {
    setValue(e.target.checked);
    onToggle(e.target.checked);
  }} /> ${label}</label>`;
}

function CopyButton({ text, label }) {
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

function useAsync(load, deps) {
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

const ErrorNote = ({ error }) => (error ? html`<p class="error" role="alert">${String(error.message ?? error)}</p>` : null);

/** Runs an action, then reports it in the page's status line. */
function useRunner(setMessage) {
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
function Clock({ run }) {
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
    <span class="muted" style="color:#e5e7eb">${clock.pendingTasks} scheduled${clock.nextTaskAt ? `, next ${when(clock.nextTaskAt)}` : ''}</span>
  </div>`;
}

// --- views ---------------------------------------------------------------------------------------
const SCOPES = ['read', 'runs:read', 'runs:write', 'creatives:write', 'creatives:review', 'assets:write', 'campaigns:write'];
const TIERS = ['starter', 'core', 'growth', 'enterprise'];
const LIMITS = ['group:read', 'group:generation_read', 'group:generation_write', 'group:creative_reviews', 'group:creative_writes', 'group:asset_writes', 'group:campaign_writes', 'account:read', 'account:generation', 'account:writes', 'ip:read', 'ip:generation', 'ip:writes'];

function AccountsView({ accounts, account, reloadAccounts, reloadAccount, select, run }) {
  const [created, setCreated] = useState();
  const [newKey, setNewKey] = useState();
  const [form, setForm] = useState({ name: '', plan: 'enterprise', empty: false });
  const [keyForm, setKeyForm] = useState({ scopes: ['read'], expiresInDays: '' });
  const [limit, setLimit] = useState({ name: 'group:read', quota: '' });
  const [balance, setBalance] = useState('');
  const id = account && encodeURIComponent(account.accountId);
  const [credits, reloadCredits] = useAsync(() => (account ? control('GET', `/accounts/${id}/credits?limit=50`) : Promise.resolve(undefined)), [account?.accountId, account]);

  const createAccount = (e) => {
    e.preventDefault();
    run('Create account', async () => {
      const out = await control('POST', '/accounts', { ...(form.name ? { name: form.name } : {}), plan: form.plan, empty: form.empty });
      setCreated(out);
      await reloadAccounts();
      select(out.accountId);
    });
  };
  const createKey = (e) => {
    e.preventDefault();
    run('Create key', async () => {
      const body = { name: 'console-made', scopes: keyForm.scopes, expiresInDays: keyForm.expiresInDays === '' ? null : Number(keyForm.expiresInDays) };
      setNewKey(await control('POST', `/accounts/${id}/keys`, body));
      reloadAccount();
    });
  };
  const toggleScope = (scope) => setKeyForm((f) => ({ ...f, scopes: f.scopes.includes(scope) ? f.scopes.filter((s) => s !== scope) : [...f.scopes, scope] }));

  return html`
    <section class="card" aria-labelledby="accounts-h">
      <h2 id="accounts-h">Accounts</h2>
      <table>
        <caption class="sr-only">Every account of the mock</caption>
        <thead><tr><th scope="col">Account</th><th scope="col">Name</th><th scope="col">Plan</th><th scope="col">API access</th><th scope="col">Created</th><th scope="col"><span class="sr-only">Select</span></th></tr></thead>
        <tbody>
          ${accounts.map((a) => html`<tr aria-selected=${account?.accountId === a.accountId ? 'true' : 'false'}>
            <td class="mono">${a.accountId}</td><td>${a.name}</td><td>${a.tier}</td><td>${a.suspended ? html`<${Status} value="suspended" />` : html`<${Status} value="active" />`}</td><td>${when(a.createdAt)}</td>
            <td><button type="button" class="secondary" onClick=${() => select(a.accountId)} aria-label=${`Open ${a.accountId}`}>Open</button></td></tr>`)}
        </tbody>
      </table>
      <form class="row" onSubmit=${createAccount} aria-label="Create an account">
        <label>Name <input aria-label="New account name" value=${form.name} onInput=${(e) => setForm({ ...form, name: e.target.value })} /></label>
        <label>Plan <select aria-label="New account plan" value=${form.plan} onChange=${(e) => setForm({ ...form, plan: e.target.value })}>${TIERS.map((t) => html`<option value=${t}>${t}</option>`)}</select></label>
        <label><input type="checkbox" checked=${form.empty} onChange=${(e) => setForm({ ...form, empty: e.target.checked })} /> Empty (no demo data)</label>
        <button type="submit">Create account</button>
      </form>
      ${created && html`<div class="notice" role="status"><p>Account <code>${created.accountId}</code> created. Its keys are shown only now:</p>
        <table><caption class="sr-only">Keys of the new account</caption><thead><tr><th scope="col">Profile</th><th scope="col">Key</th><th scope="col"><span class="sr-only">Copy</span></th></tr></thead><tbody>
        ${Object.entries(created.keys).map(([name, k]) => html`<tr><td>${name}</td><td class="mono" data-testid=${`new-key-${name}`}>${k.key}</td><td><${CopyButton} text=${k.key} label=${`Copy the ${name} key`} /></td></tr>`)}
        </tbody></table></div>`}
    </section>
    ${account && html`
    <section class="card" aria-labelledby="account-h">
      <h2 id="account-h">Account <code>${account.accountId}</code> · ${account.name}</h2>
      <div class="row">
        <label>Plan <select aria-label="Plan tier" value=${account.plan.tier} onChange=${(e) => run('Change plan', async () => { await control('PATCH', `/accounts/${id}/plan`, { tier: e.target.value }); reloadAccount(); reloadAccounts(); })}>${TIERS.map((t) => html`<option value=${t}>${t}</option>`)}</select></label>
        <${Toggle} checked=${account.suspended} label=${`Suspended`} onToggle=${(on) => run('Suspend', async () => { await control('PATCH', `/accounts/${id}`, { suspended: on }); reloadAccount(); reloadAccounts(); })} />
        <${Toggle} checked=${account.settings.sparsePages} label=${`Sparse pages`} onToggle=${(on) => run('Sparse pages', async () => { await control('PATCH', `/accounts/${id}/settings`, { sparsePages: on }); reloadAccount(); })} />
      </div>
      <dl class="facts">${Object.entries(account.counts).map(([k, v]) => html`<dt>${k}</dt><dd>${v}</dd>`)}</dl>
    </section>
    <section class="card" aria-labelledby="keys-h">
      <h3 id="keys-h">Keys</h3>
      <table><caption class="sr-only">The account's keys</caption>
        <thead><tr><th scope="col">Key id</th><th scope="col">Name</th><th scope="col">…last 4</th><th scope="col">Scopes</th><th scope="col">Status</th><th scope="col">Expires</th><th scope="col">Actions</th></tr></thead>
        <tbody>${account.keys.map((k) => html`<tr data-key-id=${k.keyId}>
          <td class="mono">${k.keyId}</td><td>${k.name}</td><td class="mono">${k.last4}</td><td>${k.scopes.join(', ')}</td><td><${Status} value=${k.status} /></td><td>${when(k.expiresAt)}</td>
          <td class="row"><button type="button" class="danger" disabled=${k.status !== 'active'} aria-label=${`Revoke ${k.keyId}`} onClick=${() => run(`Revoke ${k.keyId}`, async () => { await control('POST', `/accounts/${id}/keys/${k.keyId}/revoke`); reloadAccount(); })}>Revoke</button>
          <button type="button" class="secondary" disabled=${k.status !== 'active'} aria-label=${`Expire now ${k.keyId}`} onClick=${() => run(`Expire ${k.keyId}`, async () => { await control('POST', `/accounts/${id}/keys/${k.keyId}/expire`); reloadAccount(); })}>Expire now</button></td></tr>`)}
        </tbody></table>
      <form class="row" onSubmit=${createKey} aria-label="Create a key">
        <fieldset class="row"><legend>Scopes</legend>${SCOPES.map((s) => html`<label><input type="checkbox" checked=${keyForm.scopes.includes(s)} onChange=${() => toggleScope(s)} /> ${s}</label>`)}</fieldset>
        <label>Expires in <select value=${keyForm.expiresInDays} onChange=${(e) => setKeyForm({ ...keyForm, expiresInDays: e.target.value })}><option value="">never</option><option value="30">30 days</option><option value="90">90 days</option><option value="365">365 days</option></select></label>
        <button type="submit">Create key</button>
      </form>
      ${newKey && html`<p class="notice" role="status">New key <code data-testid="created-key">${newKey.key}</code> <${CopyButton} text=${newKey.key} label="Copy the new key" /> (shown only now)</p>`}
    </section>
    <section class="card" aria-labelledby="faults-h">
      <h3 id="faults-h">Faults and rate limits</h3>
      <div class="row">
        ${['writesPaused', 'spendUnavailable'].map((f) => html`<${Toggle} checked=${account.faults[f]} label=${f} onToggle=${(on) => run(f, async () => { await control('PATCH', `/accounts/${id}/faults`, { [f]: on }); reloadAccount(); })} />`)}
        ${['lostRaces', 'forcedRateLimits', 'slowWritesMs'].map((f) => html`<label>${f} <input type="number" min="0" style="width:7em" value=${account.faults[f]} onChange=${(e) => run(f, async () => { await control('PATCH', `/accounts/${id}/faults`, { [f]: Number(e.target.value) }); reloadAccount(); })} /></label>`)}
      </div>
      <form class="row" aria-label="Override a rate limit" onSubmit=${(e) => { e.preventDefault(); run('Rate limit', async () => { await control('PATCH', `/accounts/${id}/limits`, { [limit.name]: limit.quota === '' ? null : Number(limit.quota) }); reloadAccount(); }); }}>
        <label>Limit <select value=${limit.name} onChange=${(e) => setLimit({ ...limit, name: e.target.value })}>${LIMITS.map((l) => html`<option value=${l}>${l}</option>`)}</select></label>
        <label>Quota (empty: remove) <input type="number" min="0" style="width:8em" value=${limit.quota} onInput=${(e) => setLimit({ ...limit, quota: e.target.value })} /></label>
        <button type="submit">Set limit</button>
        <span class="muted">Overrides: <code>${JSON.stringify(account.limits)}</code></span>
      </form>
    </section>
    <section class="card" aria-labelledby="credits-h">
      <h3 id="credits-h">Credits</h3>
      <${ErrorNote} error=${credits.error} />
      ${credits.data && html`<dl class="facts"><dt>Balance</dt><dd data-testid="credits-balance">${credits.data.balance}</dd><dt>Available</dt><dd>${credits.data.available}</dd><dt>Held</dt><dd>${credits.data.held}</dd><dt>Daily budget</dt><dd>${JSON.stringify(credits.data.dailyBudget)}</dd></dl>
        <form class="row" aria-label="Set the balance" onSubmit=${(e) => { e.preventDefault(); run('Set balance', async () => { await control('POST', `/accounts/${id}/credits`, { balance: Number(balance) }); reloadCredits(); }); }}>
          <label>New balance <input type="number" min="0" value=${balance} onInput=${(e) => setBalance(e.target.value)} /></label><button type="submit">Set balance</button></form>
        <table><caption>Ledger (newest first)</caption><thead><tr><th scope="col">Entry</th></tr></thead><tbody>
          ${[...(credits.data.journal ?? [])].reverse().map((j) => html`<tr><td class="mono">${JSON.stringify(j)}</td></tr>`)}
        </tbody></table>`}
    </section>`}
    <${Everyone} run=${run} />
    <section class="card" aria-labelledby="reset-h">
      <h3 id="reset-h">Reset</h3>
      <p class="muted">Forgets every account, key and event (the demo account comes back with the same keys when the mock has one).</p>
      <button type="button" class="danger" onClick=${() => { if (confirm('Reset the whole mock?')) run('Reset', async () => { await control('POST', '/reset'); await reloadAccounts(); }); }}>Reset the mock</button>
    </section>`;
}

/** What applies to every account: global faults, the webhook processing delay, the generation speed. */
function Everyone({ run }) {
  const [state, reload] = useAsync(async () => {
    const [faults, webhooks, generation] = await Promise.all([control('GET', '/faults'), control('GET', '/webhook-settings'), control('GET', '/generation')]);
    return { faults, webhooks, generation };
  }, []);
  if (!state.data) return html`<${ErrorNote} error=${state.error} />`;
  const { faults, webhooks, generation } = state.data;
  return html`<section class="card" aria-labelledby="everyone-h">
    <h3 id="everyone-h">Every account</h3>
    <div class="row">
      <${Toggle} checked=${faults.writesPaused} label=${`Writes paused for everyone`} onToggle=${(on) => run('Global writesPaused', async () => { await control('PATCH', '/faults', { writesPaused: on }); reload(); })} />
      <label>Webhook processing delay (s) <input type="number" min="0" max="86400" style="width:6em" value=${webhooks.processingDelaySeconds} onChange=${(e) => run('Processing delay', async () => { await control('PATCH', '/webhook-settings', { processingDelaySeconds: Number(e.target.value) }); reload(); })} /></label>
      <label>Generation speed <input type="number" min="0" step="any" style="width:6em" value=${generation.speed} onChange=${(e) => run('Generation speed', async () => { await control('PATCH', '/generation', { speed: Number(e.target.value) }); reload(); })} /></label>
      <span class="muted">Retries: <code>${JSON.stringify(webhooks.retry)}</code></span>
    </div>
  </section>`;
}

// Status filters are the server's: the API's own `status` for campaigns; for creatives and assets,
// whose API lists have none, the control plane's browse lists (GET /__mock/accounts/{id}/creatives, /assets).
const KINDS = {
  creatives: { path: '/creatives', id: 'creativeId', deleted: true, browse: '/creatives', statuses: ['PENDING', 'APPROVED', 'REJECTED', 'QUEUED', 'GENERATING'], title: (r) => r.sku ?? r.creativeId, thumb: (r) => r.thumbnailUrl ?? r.url, cols: ['status', 'mediaType', 'aspectRatio', 'campaignId'] },
  products: { path: '/products', id: 'productId', title: (r) => r.title, thumb: (r) => r.primaryImageUrl, cols: ['sku', 'brandId', 'createdAt'] },
  campaigns: { path: '/campaigns', id: 'campaignId', deleted: true, statuses: ['CREATING', 'IN_PROGRESS', 'COMPLETED', 'DELETED'], title: (r) => r.name, cols: ['status', 'creativeCount', 'brandId', 'createdAt'] },
  assets: { path: '/assets', id: 'assetId', deleted: true, browse: '/assets', statuses: ['active', 'archived'], title: (r) => r.name, thumb: (r) => r.thumbnailUrl ?? r.url, cols: ['status', 'type', 'width', 'height'] },
  deliveries: { path: '/deliveries', id: 'deliveryId', title: (r) => r.deliveryId, thumb: (r) => r.url, cols: ['aspectRatio', 'mediaType', 'creativeId', 'createdAt'] },
  presets: { path: '/presets', id: 'presetId', single: false, title: (r) => r.name, cols: ['modality', 'description'] },
};

/** What another actor can do to a resource, as the public operation it runs. */
const ACTIONS = {
  creatives: [
    ['Approve as review link', 'share_link', 'approveCreative', 'creativeId'],
    ['Reject as review link', 'share_link', 'rejectCreative', 'creativeId', { rejectionReason: 'Rejected from the console' }],
    ['Approve as dashboard user', 'user', 'approveCreative', 'creativeId'],
    ['Delete as dashboard user', 'user', 'deleteCreative', 'creativeId'],
    ['Restore as dashboard user', 'user', 'undeleteCreative', 'creativeId'],
  ],
  campaigns: [
    ['Delete as dashboard user', 'user', 'deleteCampaign', 'campaignId'],
    ['Restore as dashboard user', 'user', 'undeleteCampaign', 'campaignId'],
    ['Restore as staff', 'staff', 'undeleteCampaign', 'campaignId'],
  ],
  assets: [
    ['Archive as dashboard user', 'user', 'archiveAsset', 'assetId'],
    ['Unarchive as dashboard user', 'user', 'unarchiveAsset', 'assetId'],
    ['Delete as partner operator', 'partner_operator', 'deleteAsset', 'assetId'],
    ['Restore as staff', 'staff', 'undeleteAsset', 'assetId'],
    ['Upscale to 4K as dashboard user', 'user', 'createUpscale', null, (id) => ({ source: { assetId: id }, target: '4K' })],
  ],
};

/** A campaign's creatives as the dashboard sees them (GET /__mock/accounts/{id}/campaigns/{campaignId}/creatives), a page at a time. */
function CampaignCreatives({ account, campaignId, run }) {
  const [offset, setOffset] = useState(0);
  const size = 20;
  const [page, reload] = useAsync(() => control('GET', `/accounts/${encodeURIComponent(account.accountId)}/campaigns/${encodeURIComponent(campaignId)}/creatives?limit=${size}&offset=${offset}`), [account.accountId, campaignId, offset]);
  useLive('event', (d) => d.event.resource.kind === 'creative' && reload());
  return html`<h4>Creatives of this campaign</h4>
    <${ErrorNote} error=${page.error} />
    <div class="row"><button type="button" class="secondary" onClick=${() => run('Generate creatives', async () => {
      const out = await control('POST', `/accounts/${encodeURIComponent(account.accountId)}/actions`, { actor: { kind: 'user' }, action: 'generateCreatives', input: { campaignId } });
      if (out.status >= 400) throw new Error(`${out.status} ${out.body?.code ?? ''}`);
      reload();
    })}>Generate its creatives (dashboard)</button></div>
    ${page.data && html`<table><caption class="sr-only">The campaign's creatives</caption><thead><tr><th scope="col">Creative</th><th scope="col">Status</th><th scope="col">Media</th><th scope="col">In the API</th></tr></thead>
      <tbody>${page.data.data.map((c) => html`<tr data-campaign-creative=${c.creativeId}><td class="mono">${c.creativeId}</td><td><${Status} value=${c.deletedAt ? 'deleted' : c.status} /></td><td>${c.mediaType}</td><td>${c.readable ? 'yes' : 'no'}</td></tr>`)}</tbody></table>
      <div class="row"><button type="button" class="secondary" disabled=${offset === 0} onClick=${() => setOffset(Math.max(0, offset - size))}>Previous creatives</button>
      <span>${page.data.total === 0 ? 'none' : `${offset + 1}–${Math.min(offset + size, page.data.total)} of ${page.data.total}`}</span>
      <button type="button" class="secondary" disabled=${offset + size >= page.data.total} onClick=${() => setOffset(offset + size)}>More creatives</button></div>`}`;
}

function Detail({ account, kind, row, run, onChanged }) {
  const spec = KINDS[kind];
  const id = row[spec.id];
  const [state, reload] = useAsync(async () => {
    const [one, history] = await Promise.all([
      spec.single === false ? Promise.resolve({ body: row, etag: null }) : api(account, `${spec.path}/${encodeURIComponent(id)}`, spec.deleted ? { showDeleted: true } : {}),
      control('GET', `/accounts/${encodeURIComponent(account.accountId)}/events?resourceId=${encodeURIComponent(id)}&limit=50`),
    ]);
    // An asset made from another (an upscale): its chain up to the root, one read per step.
    const chain = [];
    for (let parent = one.body?.derivation?.parentAssetId; parent && chain.length < 10; ) {
      const up = await api(account, `/assets/${encodeURIComponent(parent)}`, { showDeleted: true });
      chain.push(up.body);
      parent = up.body.derivation?.parentAssetId;
    }
    return { ...one, history: history.data, chain };
  }, [account.accountId, kind, id]);
  useLive('event', (d) => d.event.resource.id === id && reload());
  useLive('changed', (d) => d.collections.includes(kind) && reload());
  return html`<section class="card" aria-labelledby="detail-h">
    <h3 id="detail-h">${kind.replace(/s$/, '')} <code>${id}</code></h3>
    <${ErrorNote} error=${state.error} />
    ${(ACTIONS[kind] ?? []).length > 0 && html`<div class="row" role="group" aria-label="Act as another actor">
      ${ACTIONS[kind].map(([label, actor, operationId, param, body]) => html`<button type="button" class="secondary" onClick=${() => run(label, async () => {
        const out = await act(account.accountId, actor, operationId, param ? { [param]: id } : {}, typeof body === 'function' ? body(id) : body);
        if (out.status >= 400) throw new Error(`${out.status} ${out.body?.code ?? ''}`);
        reload();
        onChanged();
      })}>${label}</button>`)}
    </div>`}
    ${state.data && html`
      <dl class="facts"><dt>ETag</dt><dd class="mono" data-testid="etag">${state.data.etag ?? '—'}</dd></dl>
      ${kind === 'campaigns' && html`<${CampaignCreatives} account=${account} campaignId=${id} run=${run} />`}
      ${state.data.chain.length > 0 && html`<h4>Derived from</h4><ol aria-label="Derivation chain">${state.data.chain.map((a) => html`<li data-asset-id=${a.assetId}><code>${a.assetId}</code> ${a.name} (${a.width}×${a.height})</li>`)}</ol>`}
      <h4>JSON</h4><${Json} value=${state.data.body} label="Resource JSON" />
      <h4>History (event log)</h4>
      ${state.data.history.length === 0 ? html`<p class="muted">No events.</p>` : html`<table><caption class="sr-only">Events about this resource</caption><thead><tr><th scope="col">When</th><th scope="col">Event</th><th scope="col">Actor</th></tr></thead><tbody>
        ${[...state.data.history].reverse().map((e) => html`<tr><td>${when(e.timestamp)}</td><td>${e.type}</td><td>${e.actor ? e.actor.kind : '—'}</td></tr>`)}</tbody></table>`}`}
  </section>`;
}

/** `?a=1&b=2` of the defined values (empty string: no query). */
function query(values) {
  const search = new URLSearchParams(Object.entries(values).filter(([, v]) => v !== undefined && v !== '' && v !== null && v !== false).map(([k, v]) => [k, String(v)]));
  return search.size ? `?${search}` : '';
}

function DataView({ account, run }) {
  const [kind, setKind] = useState('creatives');
  const [cursors, setCursors] = useState([undefined]);
  const [showDeleted, setShowDeleted] = useState(false);
  const [status, setStatus] = useState('');
  const [selected, setSelected] = useState();
  const [size, setSize] = useState(PAGE);
  const spec = KINDS[kind];
  const cursor = cursors[cursors.length - 1];
  // A status filter on creatives or assets reads the control plane's browse list (filtered by the
  // server, paged with `from`/`next`); everything else reads the API's list (paged with cursors).
  const browsing = Boolean(spec.browse && status);
  const [page, reload] = useAsync(async () => {
    if (browsing) {
      const out = await control('GET', `/accounts/${encodeURIComponent(account.accountId)}${spec.browse}${query({ status, showDeleted: spec.deleted && showDeleted, limit: size, from: cursor })}`);
      return { body: { data: out.data, pagination: { hasMore: out.next !== null, nextCursor: out.next } } };
    }
    return api(account, spec.path, { limit: size, cursor, ...(spec.deleted && showDeleted ? { showDeleted: true } : {}), ...(status ? { status } : {}) });
  }, [account.accountId, kind, cursor, showDeleted, status, size]);
  // Made or changed outside the page (the API, another actor, the clock): the page shown again.
  useLive('changed', (d) => d.collections.includes(kind) && reload());
  const choose = (k) => {
    setKind(k);
    setCursors([undefined]);
    setSelected(undefined);
    setStatus('');
  };
  const rows = page.data?.body.data ?? [];
  return html`<div class="split">
    <section class="card" aria-labelledby="data-h">
      <h2 id="data-h">Data</h2>
      <div class="tabs" role="group" aria-label="Collection">${Object.keys(KINDS).map((k) => html`<button type="button" aria-pressed=${k === kind ? 'true' : 'false'} onClick=${() => choose(k)}>${k}</button>`)}</div>
      <div class="row">
        ${spec.deleted && html`<label><input type="checkbox" checked=${showDeleted} onChange=${(e) => { setShowDeleted(e.target.checked); setCursors([undefined]); }} /> showDeleted</label>`}
        ${spec.statuses && html`<label>Status <select value=${status} onChange=${(e) => { setStatus(e.target.value); setCursors([undefined]); }}>
          <option value="">any</option>
          ${spec.statuses.map((s) => html`<option value=${s}>${s}</option>`)}
        </select></label>`}
        <label>Page size <select value=${size} onChange=${(e) => { setSize(Number(e.target.value)); setCursors([undefined]); }}>${[10, 25, 50, 100].map((n) => html`<option value=${n}>${n}</option>`)}</select></label>
        <button type="button" class="secondary" onClick=${reload}>Refresh</button>
      </div>
      ${browsing && html`<p class="muted">Filtered by the server (<code>GET /__mock/accounts/${account.accountId}${spec.browse}?status=${status}</code>): a page may be short, even empty, before the end.</p>`}
      <${ErrorNote} error=${page.error} />
      <table>
        <caption class="sr-only">${kind}, page ${cursors.length}</caption>
        <thead><tr>${spec.thumb && html`<th scope="col">Image</th>`}<th scope="col">Id</th><th scope="col">Name</th>${spec.cols.map((c) => html`<th scope="col">${c}</th>`)}</tr></thead>
        <tbody>${rows.map((r) => html`<tr class="selectable" tabindex="0" data-row-id=${r[spec.id]} aria-selected=${selected?.[spec.id] === r[spec.id] ? 'true' : 'false'} onClick=${() => setSelected(r)} onKeyDown=${(e) => (e.key === 'Enter' || e.key === ' ') && (e.preventDefault(), setSelected(r))}>
          ${spec.thumb && html`<td><${Thumb} url=${spec.thumb(r)} label=${spec.title(r) ?? r[spec.id]} /></td>`}
          <td class="mono">${r[spec.id]}</td><td>${spec.title(r)}</td>${spec.cols.map((c) => html`<td>${c === 'status' ? html`<${Status} value=${r[c]} />` : String(r[c] ?? '—')}</td>`)}</tr>`)}
        </tbody>
      </table>
      <div class="row">
        <button type="button" class="secondary" disabled=${cursors.length === 1} onClick=${() => setCursors(cursors.slice(0, -1))}>Previous page</button>
        <span>Page ${cursors.length}</span>
        <button type="button" class="secondary" disabled=${!page.data?.body.pagination?.hasMore} onClick=${() => setCursors([...cursors, page.data.body.pagination.nextCursor])}>Next page</button>
      </div>
    </section>
    ${selected ? html`<${Detail} account=${account} kind=${kind} row=${selected} run=${run} onChanged=${reload} />` : html`<section class="card"><p class="muted">Select a row to see its JSON, ETag and history.</p></section>`}
  </div>`;
}

const OUTCOMES = ['succeeded', 'failed', 'refused', 'stall'];

/** How the account's next run items turn out, and how fast (GET/PATCH /__mock/accounts/{id}/generation). */
function Generation({ account, run }) {
  const id = encodeURIComponent(account.accountId);
  const [settings, reload] = useAsync(() => control('GET', `/accounts/${id}/generation`), [id]);
  const [mix, setMix] = useState();
  const [speed, setSpeed] = useState('');
  useEffect(() => {
    if (settings.data) {
      setMix({ ...settings.data.outcomeMix });
      setSpeed(settings.data.speed === null ? '' : String(settings.data.speed));
    }
  }, [settings.data]);
  if (!settings.data || !mix) return html`<${ErrorNote} error=${settings.error} />`;
  const save = (e) => {
    e.preventDefault();
    run('Generation', async () => {
      await control('PATCH', `/accounts/${id}/generation`, { outcomeMix: Object.fromEntries(OUTCOMES.map((o) => [o, Number(mix[o] ?? 0)])), speed: speed === '' ? null : Number(speed) });
      reload();
    });
  };
  return html`<form class="row" aria-label="How the next run items turn out" onSubmit=${save}>
    <strong>Next items</strong>
    ${OUTCOMES.map((o) => html`<label>${o} <input type="number" min="0" step="any" style="width:5em" value=${mix[o] ?? 0} onInput=${(e) => setMix({ ...mix, [o]: e.target.value })} /></label>`)}
    <label>Speed (empty: global, now ${settings.data.effectiveSpeed}) <input type="number" min="0" step="any" style="width:6em" value=${speed} onInput=${(e) => setSpeed(e.target.value)} /></label>
    <button type="submit">Save</button>
    ${settings.data.outcomePattern && html`<span class="muted">Pattern set: <code>${settings.data.outcomePattern.join(', ')}</code></span>`}
  </form>`;
}

/** A run in one of these statuses is final (spec/openapi.yaml RunStatus): nothing left to stop. */
const FINAL_RUN_STATUSES = ['SUCCEEDED', 'PARTIAL', 'FAILED', 'REFUSED', 'STOPPED', 'EXPIRED'];

/** What one run or upscale holds, was charged and released (the credits ledger read for its id, the latest 20 movements only). */
function runCredits(account, refId) {
  return control('GET', `/accounts/${encodeURIComponent(account.accountId)}/credits${query({ refId, limit: 20 })}`);
}

function RefCredits({ credits }) {
  if (!credits) return null;
  return html`<h4>Credits</h4>
    <dl class="facts" data-testid="ref-credits"><dt>Held now</dt><dd>${credits.ref.held}</dd><dt>Charged</dt><dd>${credits.ref.charged}</dd><dt>Released</dt><dd>${credits.ref.released}</dd></dl>
    <details><summary>Latest movements (${credits.journal.length})</summary>
      <table><caption class="sr-only">The latest credit movements of this one</caption><thead><tr><th scope="col">Movement</th><th scope="col">Amount</th><th scope="col">At</th></tr></thead>
        <tbody>${credits.journal.map((j) => html`<tr><td>${j.kind}${j.ref.jobId ? ` (${j.ref.jobId})` : ''}</td><td>${j.amount}</td><td>${when(j.at)}</td></tr>`)}</tbody></table></details>`;
}

function RunsView({ account, run }) {
  const [selected, setSelectedRun] = useState();
  const [cursors, setCursors] = useState([undefined]);
  const cursor = cursors[cursors.length - 1];
  const [itemCursors, setItemCursors] = useState([undefined]);
  const itemCursor = itemCursors[itemCursors.length - 1];
  const setSelected = (runId) => {
    setSelectedRun(runId);
    setItemCursors([undefined]);
  };
  const [runs, reloadRuns] = useAsync(() => api(account, '/runs', { limit: PAGE, cursor }), [account.accountId, cursor]);
  const [detail, reloadDetail] = useAsync(async () => {
    if (!selected) return undefined;
    const [one, items, credits] = await Promise.all([
      api(account, `/runs/${encodeURIComponent(selected)}`),
      api(account, `/runs/${encodeURIComponent(selected)}/items`, { limit: 100, cursor: itemCursor }),
      runCredits(account, selected),
    ]);
    return { run: one.body, items: items.body.data, itemsPage: items.body.pagination, credits };
  }, [account.accountId, selected, itemCursor]);
  const refresh = () => {
    reloadRuns();
    reloadDetail();
  };
  useLive('clock', refresh);
  useLive('event', (d) => d.event.resource.kind === 'run' && refresh());
  useLive('changed', (d) => d.collections.includes('runs') && refresh()); // a run made or moved outside the page
  const r = detail.data?.run;
  const byStatus = {};
  for (const item of detail.data?.items ?? []) byStatus[item.status] = (byStatus[item.status] ?? 0) + 1;
  return html`<div class="split">
    <section class="card" aria-labelledby="runs-h">
      <h2 id="runs-h">Runs</h2>
      <${ErrorNote} error=${runs.error} />
      <table><caption class="sr-only">The account's runs, newest first</caption>
        <thead><tr><th scope="col">Run</th><th scope="col">Status</th><th scope="col">Created</th></tr></thead>
        <tbody>${(runs.data?.body.data ?? []).map((x) => html`<tr class="selectable" tabindex="0" data-run-id=${x.runId} aria-selected=${selected === x.runId ? 'true' : 'false'} onClick=${() => setSelected(x.runId)} onKeyDown=${(e) => e.key === 'Enter' && setSelected(x.runId)}>
          <td class="mono">${x.runId}</td><td><${Status} value=${x.status} /></td><td>${when(x.createdAt)}</td></tr>`)}</tbody></table>
      <div class="row">
        <button type="button" class="secondary" disabled=${cursors.length === 1} onClick=${() => setCursors(cursors.slice(0, -1))}>Previous runs</button>
        <span>Page ${cursors.length}</span>
        <button type="button" class="secondary" disabled=${!runs.data?.body.pagination?.hasMore} onClick=${() => setCursors([...cursors, runs.data.body.pagination.nextCursor])}>More runs</button>
      </div>
      <${Generation} account=${account} run=${run} />
    </section>
    <section class="card" aria-labelledby="run-h">
      <h2 id="run-h">${selected ? html`Run <code>${selected}</code>` : 'Select a run'}</h2>
      <${ErrorNote} error=${detail.error} />
      ${r && html`<div class="row"><${Status} value=${r.status} /> <button type="button" class="danger" disabled=${FINAL_RUN_STATUSES.includes(r.status)} title=${FINAL_RUN_STATUSES.includes(r.status) ? 'The run is final' : undefined} onClick=${() => run('Stop run', async () => { const out = await act(account.accountId, 'user', 'stopRun', { runId: r.runId }); if (out.status >= 400) throw new Error(`${out.status} ${out.body?.code ?? ''}`); refresh(); })}>Stop run</button></div>
        <dl class="facts">${Object.entries(r).filter(([, v]) => v === null || typeof v !== 'object').map(([k, v]) => html`<dt>${k}</dt><dd>${String(v)}</dd>`)}</dl>
        ${Object.entries(r).filter(([, v]) => v && typeof v === 'object').map(([k, v]) => html`<h4>${k}</h4><${Json} value=${v} label=${k} />`)}
        <${RefCredits} credits=${detail.data.credits} />
        <h4>Items by status${itemCursors.length > 1 || detail.data.itemsPage?.hasMore ? ` (items page ${itemCursors.length})` : ''}</h4>
        <p data-testid="items-by-status">${Object.entries(byStatus).map(([k, v]) => `${k}: ${v}`).join(', ') || '—'}</p>
        <table><caption class="sr-only">The run's items</caption><thead><tr><th scope="col">Item</th><th scope="col">Status</th><th scope="col">Outcome</th></tr></thead>
          <tbody>${detail.data.items.map((i) => html`<tr><td class="mono">${i.itemId ?? i.position}</td><td><${Status} value=${i.status} /></td><td>${JSON.stringify(i.outcome ?? i.error ?? null)}</td></tr>`)}</tbody></table>
        <div class="row">
          <button type="button" class="secondary" disabled=${itemCursors.length === 1} onClick=${() => setItemCursors(itemCursors.slice(0, -1))}>Previous items</button>
          <button type="button" class="secondary" disabled=${!detail.data.itemsPage?.hasMore} onClick=${() => setItemCursors([...itemCursors, detail.data.itemsPage.nextCursor])}>More items</button>
        </div>`}
    </section>
  </div>`;
}

const UPSCALE_STATUSES = ['QUEUED', 'PROCESSING', 'SUCCEEDED', 'FAILED'];

/**
 * The account's upscales on the clock (GET /__mock/accounts/{id}/upscales: the API has no list of
 * them), newest first, a page at a time, filtered by status on the server; a result's asset with
 * its derivation chain.
 */
function UpscalesView({ account, run }) {
  const id = encodeURIComponent(account.accountId);
  const [status, setStatus] = useState('');
  const [froms, setFroms] = useState([undefined]);
  const [selected, setSelected] = useState();
  const from = froms[froms.length - 1];
  const [list, reload] = useAsync(() => control('GET', `/accounts/${id}/upscales${query({ status, limit: PAGE, from })}`), [id, status, from]);
  const [credits, reloadCredits] = useAsync(() => (selected ? runCredits(account, selected) : Promise.resolve(undefined)), [id, selected]);
  const refresh = () => {
    reload();
    reloadCredits();
  };
  useLive('clock', refresh);
  useLive('changed', (d) => d.collections.includes('upscales') && refresh());
  const rows = list.data?.data ?? [];
  const chosen = rows.find((u) => u.upscaleId === selected);
  const source = (u) => (u.source.assetId ? `asset ${u.source.assetId}` : `product ${u.source.productId} ${u.source.image}${u.source.index !== undefined ? ` #${u.source.index}` : ''}`);
  return html`<div class="split">
    <section class="card" aria-labelledby="upscales-h">
      <h2 id="upscales-h">Upscales</h2>
      <p class="muted">Newest first, live. An upscale is made with <code>POST /upscales</code>, or from an asset's detail in Data; the clock's buttons move it on.</p>
      <div class="row">
        <label>Status <select value=${status} onChange=${(e) => { setStatus(e.target.value); setFroms([undefined]); }}>
          <option value="">any</option>${UPSCALE_STATUSES.map((s) => html`<option value=${s}>${s}</option>`)}
        </select></label>
      </div>
      <${ErrorNote} error=${list.error} />
      <table><caption class="sr-only">The account's upscales, newest first</caption>
        <thead><tr><th scope="col">Upscale</th><th scope="col">Status</th><th scope="col">Target</th><th scope="col">Source</th><th scope="col">Created</th><th scope="col">Settles</th><th scope="col">Outcome</th></tr></thead>
        <tbody>${rows.map((u) => html`<tr class="selectable" tabindex="0" data-upscale-id=${u.upscaleId} aria-selected=${selected === u.upscaleId ? 'true' : 'false'} onClick=${() => setSelected(u.upscaleId)} onKeyDown=${(e) => e.key === 'Enter' && setSelected(u.upscaleId)}>
          <td class="mono">${u.upscaleId}</td><td><${Status} value=${u.status} /></td><td>${u.target}</td><td class="mono">${source(u)}</td><td>${when(u.createdAt)}</td>
          <td>${u.finalizedAt ? when(u.finalizedAt) : u.finishesAt ? `≈ ${when(u.finishesAt)}` : '—'}</td>
          <td>${u.assetId ? html`asset <code>${u.assetId}</code>` : u.failureReason ?? '—'}</td></tr>`)}</tbody></table>
      ${rows.length === 0 && !list.loading && html`<p class="muted">No upscale${status ? ` ${status}` : ''} on this page.</p>`}
      <div class="row">
        <button type="button" class="secondary" disabled=${froms.length === 1} onClick=${() => setFroms(froms.slice(0, -1))}>Previous page</button>
        <span>Page ${froms.length}</span>
        <button type="button" class="secondary" disabled=${list.data?.next == null} onClick=${() => setFroms([...froms, list.data.next])}>Next page</button>
      </div>
    </section>
    ${chosen
      ? html`<div>
          <section class="card" aria-labelledby="upscale-h">
            <h2 id="upscale-h">Upscale <code>${chosen.upscaleId}</code></h2>
            <div class="row"><${Status} value=${chosen.status} /></div>
            <dl class="facts">
              <dt>Source</dt><dd class="mono">${source(chosen)}</dd><dt>Derives from</dt><dd class="mono">${chosen.parentAssetId}</dd><dt>Target</dt><dd>${chosen.target}</dd>
              <dt>Credits (estimated)</dt><dd>${chosen.credits.estimated} (rate card ${chosen.credits.rateCardVersion})</dd>
              <dt>Created</dt><dd>${when(chosen.createdAt)}</dd><dt>Started</dt><dd>${when(chosen.startedAt)}</dd><dt>Finishes (clock)</dt><dd>${when(chosen.finishesAt)}</dd><dt>Finalized</dt><dd>${when(chosen.finalizedAt)}</dd>
              <dt>Result</dt><dd class="mono" data-testid="upscale-result">${chosen.assetId ?? chosen.failureReason ?? '—'}</dd>
            </dl>
            <${RefCredits} credits=${credits.data} />
          </section>
          ${chosen.assetId && html`<${Detail} key=${chosen.assetId} account=${account} kind="assets" row=${{ assetId: chosen.assetId }} run=${run} onChanged=${reload} />`}
        </div>`
      : html`<section class="card"><p class="muted">Select an upscale to see its times on the clock and, once it succeeded, its asset and derivation chain.</p></section>`}
  </div>`;
}

const EVENT_TYPES = ['run.completed', 'creative.approved', 'creative.rejected', 'creative.updated', 'creative.deleted', 'creative.restored', 'asset.updated', 'asset.archived', 'asset.unarchived', 'asset.deleted', 'asset.restored', 'campaign.created', 'campaign.updated', 'campaign.deleted', 'campaign.restored'];

function WebhooksView({ account, run }) {
  const id = encodeURIComponent(account.accountId);
  const [endpoints, reloadEndpoints] = useAsync(() => control('GET', `/accounts/${id}/webhook-endpoints`), [id]);
  const [log, reloadLog] = useAsync(() => control('GET', `/accounts/${id}/webhook-deliveries?limit=100`), [id]);
  const [events, reloadEvents] = useAsync(() => control('GET', `/accounts/${id}/events?limit=100`), [id]);
  const [form, setForm] = useState({ url: '', types: ['creative.approved'], failFirst: 0 });
  const [secret, setSecret] = useState();
  const [open, setOpen] = useState();
  useLive('delivery', reloadLog);
  useLive('event', reloadEvents);
  const add = (e) => {
    e.preventDefault();
    run('Add endpoint', async () => {
      const out = await control('POST', `/accounts/${id}/webhook-endpoints`, { url: form.url, eventTypes: form.types, chaos: { failFirst: Number(form.failFirst) } });
      setSecret(out);
      reloadEndpoints();
    });
  };
  return html`
    <section class="card" aria-labelledby="endpoints-h">
      <h2 id="endpoints-h">Webhook endpoints</h2>
      <${ErrorNote} error=${endpoints.error} />
      <table><caption class="sr-only">Endpoints</caption><thead><tr><th scope="col">Endpoint</th><th scope="col">URL</th><th scope="col">Events</th><th scope="col">Chaos</th><th scope="col">Enabled</th><th scope="col">Actions</th></tr></thead>
        <tbody>${(endpoints.data?.data ?? []).map((ep) => html`<tr><td class="mono">${ep.endpointId}</td><td class="mono">${ep.url}</td><td>${ep.eventTypes.join(', ')}</td><td class="mono">${JSON.stringify(ep.chaos)}</td><td>${String(ep.enabled)}</td>
          <td class="row"><button type="button" class="secondary" onClick=${() => run('Enable/disable', async () => { await control('PATCH', `/accounts/${id}/webhook-endpoints/${ep.endpointId}`, { enabled: !ep.enabled }); reloadEndpoints(); })}>${ep.enabled ? 'Disable' : 'Enable'}</button>
          <button type="button" class="danger" aria-label=${`Remove ${ep.endpointId}`} onClick=${() => run('Remove endpoint', async () => { await control('DELETE', `/accounts/${id}/webhook-endpoints/${ep.endpointId}`); reloadEndpoints(); })}>Remove</button></td></tr>`)}</tbody></table>
      <form class="row" aria-label="Add an endpoint" onSubmit=${add}>
        <label>URL (loopback) <input type="url" required style="width:22em" value=${form.url} onInput=${(e) => setForm({ ...form, url: e.target.value })} /></label>
        <label>Event types <select multiple size="4" value=${form.types} onChange=${(e) => setForm({ ...form, types: [...e.target.selectedOptions].map((o) => o.value) })}>${EVENT_TYPES.map((t) => html`<option value=${t} selected=${form.types.includes(t)}>${t}</option>`)}</select></label>
        <label>Chaos: fail first <input type="number" min="0" max="10" style="width:4em" value=${form.failFirst} onInput=${(e) => setForm({ ...form, failFirst: e.target.value })} /> attempts</label>
        <button type="submit">Add endpoint</button>
      </form>
      ${secret && html`<p class="notice" role="status">Signing secret of <code>${secret.endpointId}</code> (shown only now): <code data-testid="endpoint-secret">${secret.secret}</code> <${CopyButton} text=${secret.secret} label="Copy the signing secret" /></p>`}
    </section>
    <section class="card" aria-labelledby="log-h">
      <h2 id="log-h">Delivery log</h2>
      <${ErrorNote} error=${log.error} />
      <table><caption class="sr-only">Delivery attempts, newest first</caption><thead><tr><th scope="col">Attempted</th><th scope="col">Event</th><th scope="col">Attempt</th><th scope="col">Status</th><th scope="col">Answer</th><th scope="col">Latency</th><th scope="col">Next retry</th><th scope="col">Actions</th></tr></thead>
        <tbody>${[...(log.data?.data ?? [])].reverse().map((d, i) => html`<tr data-delivery-id=${d.deliveryId}>
          <td>${when(d.attemptedAt)}</td><td>${d.type} <span class="mono muted">${d.eventId}</span></td><td>${d.attempt}${d.duplicate ? ' (copy)' : ''}</td><td><${Status} value=${d.status} /></td><td>${d.responseStatus ?? d.error ?? '—'}</td><td>${d.latencyMs === null ? '—' : `${d.latencyMs} ms`}</td><td>${when(d.nextAttemptAt)}</td>
          <td class="row"><button type="button" class="secondary" aria-expanded=${open === i ? 'true' : 'false'} onClick=${() => setOpen(open === i ? undefined : i)}>Request</button>
          <button type="button" class="secondary" aria-label=${`Re-send ${d.deliveryId}`} onClick=${() => run('Re-send', async () => { await control('POST', `/accounts/${id}/webhook-deliveries/${d.deliveryId}/resend`); })}>Re-send</button></td></tr>
          ${open === i && html`<tr><td colspan="8">${d.request ? html`<${Json} value=${d.request.headers} label="Headers and signature" /><${Json} value=${d.request.body} label="Payload" />` : html`<p class="muted">Not sent.</p>`}</td></tr>`}`)}</tbody></table>
    </section>
    <section class="card" aria-labelledby="events-h">
      <h2 id="events-h">Event log</h2>
      <table><caption class="sr-only">Events, newest first</caption><thead><tr><th scope="col">When</th><th scope="col">Type</th><th scope="col">Resource</th><th scope="col">Actor</th></tr></thead>
        <tbody>${[...(events.data?.data ?? [])].reverse().map((e) => html`<tr><td>${when(e.timestamp)}</td><td>${e.type}</td><td class="mono">${e.resource.kind} ${e.resource.id}</td><td>${e.actor ? e.actor.kind : '—'}</td></tr>`)}</tbody></table>
    </section>`;
}

function RequestsView({ account }) {
  const id = encodeURIComponent(account.accountId);
  const [journal, reload] = useAsync(() => control('GET', `/accounts/${id}/requests?limit=50`), [id]);
  const [open, setOpen] = useState();
  const [hideOwn, setHideOwn] = useState(true);
  useLive('request', reload);
  const own = JSON.parse(sessionStorage.getItem(`cgs-console-key:${account.accountId}`) ?? 'null')?.keyId;
  const entries = (journal.data?.data ?? []).filter((e) => !hideOwn || !own || e.keyId !== own);
  const entry = entries.find((e) => e.seq === open);
  return html`<div class="split">
    <section class="card" aria-labelledby="requests-h">
      <h2 id="requests-h">Requests (live)</h2>
      <p class="muted">The account's API requests, newest first (the newest ${journal.data?.capacity ?? 500} are kept; ${journal.data?.total ?? 0} so far). Also at <code>GET /__mock/accounts/${account.accountId}/requests</code>.</p>
      <label><input type="checkbox" checked=${hideOwn} onChange=${(e) => setHideOwn(e.target.checked)} /> Hide the console's own reads</label>
      <${ErrorNote} error=${journal.error} />
      <table><caption class="sr-only">Request journal</caption><thead><tr><th scope="col">#</th><th scope="col">At</th><th scope="col">Method</th><th scope="col">Path</th><th scope="col">Status</th><th scope="col">Code</th><th scope="col">Latency</th><th scope="col">RateLimit</th></tr></thead>
        <tbody>${entries.map((e) => html`<tr class="selectable" tabindex="0" aria-selected=${open === e.seq ? 'true' : 'false'} onClick=${() => setOpen(e.seq)} onKeyDown=${(k) => k.key === 'Enter' && setOpen(e.seq)}>
          <td>${e.seq}</td><td>${when(e.at)}</td><td>${e.method}</td><td class="mono">${e.path}${Object.keys(e.query).length ? `?${new URLSearchParams(e.query)}` : ''}</td><td><${Status} value=${e.status} /></td><td>${e.code ?? '—'}</td><td>${e.latencyMs} ms</td><td class="mono">${e.rateLimit.limit ?? '—'}</td></tr>`)}</tbody></table>
    </section>
    <section class="card" aria-labelledby="request-h">
      <h2 id="request-h">${entry ? `${entry.method} ${entry.path}` : 'Select a request'}</h2>
      ${entry && html`<dl class="facts"><dt>Request id</dt><dd class="mono">${entry.requestId}</dd><dt>Key</dt><dd class="mono">${entry.keyId ?? '—'}</dd><dt>RateLimit-Policy</dt><dd class="mono">${entry.rateLimit.policy ?? '—'}</dd><dt>Retry-After</dt><dd>${entry.rateLimit.retryAfter ?? '—'}</dd></dl>
        <h3>Request headers</h3><${Json} value=${entry.request.headers} label="Request headers" />
        <h3>Request body${entry.request.truncated ? ' (cut)' : ''}</h3><${Json} value=${entry.request.body ?? '(none)'} label="Request body" />
        <h3>Response headers</h3><${Json} value=${entry.response.headers} label="Response headers" />
        <h3>Response body${entry.response.truncated ? ' (cut)' : ''}</h3><${Json} value=${entry.response.body} label="Response body" />`}
    </section>
  </div>`;
}

// --- the page ------------------------------------------------------------------------------------
const VIEWS = [
  ['accounts', 'Accounts & keys'],
  ['data', 'Data'],
  ['runs', 'Runs & clock'],
  ['upscales', 'Upscales'],
  ['webhooks', 'Events & webhooks'],
  ['requests', 'Requests'],
];

function route() {
  const [view = 'accounts', accountId] = location.hash.replace(/^#\/?/, '').split('/');
  return { view: VIEWS.some(([v]) => v === view) ? view : 'accounts', accountId: accountId ? decodeURIComponent(accountId) : undefined };
}

function App() {
  const [where, setWhere] = useState(route());
  const [accounts, setAccounts] = useState();
  const [account, setAccount] = useState();
  const [error, setError] = useState();
  const [message, setMessage] = useState();
  const [live, setLive] = useState(false);
  const run = useRunner(setMessage);

  useEffect(() => {
    const onHash = () => setWhere(route());
    addEventListener('hashchange', onHash);
    return () => removeEventListener('hashchange', onHash);
  }, []);
  const reloadAccounts = useCallback(() => control('GET', '/accounts').then((l) => setAccounts(l.data), setError), []);
  useEffect(() => void reloadAccounts(), []);
  const accountId = where.accountId ?? accounts?.[0]?.accountId;
  const reloadAccount = useCallback(() => {
    if (!accountId) return setAccount(undefined);
    control('GET', `/accounts/${encodeURIComponent(accountId)}`).then(setAccount, (e) => {
      setAccount(undefined);
      setError(e);
    });
  }, [accountId]);
  useEffect(reloadAccount, [reloadAccount]);
  useEffect(() => openStream(accountId, setLive), [accountId]);
  useLive('reset', () => {
    madeHere.clear();
    reloadAccounts();
    reloadAccount();
  });
  const go = (view, id = accountId) => {
    location.hash = `#/${view}${id ? `/${encodeURIComponent(id)}` : ''}`;
  };
  const ready = account && account.accountId === accountId;

  return html`
    <header class="top">
      <h1>Mock console</h1>
      <label>Account <select aria-label="Account" value=${accountId ?? ''} onChange=${(e) => go(where.view, e.target.value)}>
        ${(accounts ?? []).map((a) => html`<option value=${a.accountId}>${a.accountId} · ${a.name}</option>`)}
      </select></label>
      <${Clock} run=${run} />
      <span class=${`live ${live ? 'on' : ''}`} role="status" aria-label="Live updates">${live ? 'live' : 'offline'}</span>
    </header>
    <nav class="views" aria-label="Views">${VIEWS.map(([v, label]) => html`<a href=${`#/${v}${accountId ? `/${encodeURIComponent(accountId)}` : ''}`} aria-current=${where.view === v ? 'page' : undefined}>${label}</a>`)}</nav>
    <main>
      <p role="status" aria-live="polite" class=${message ? (message.ok ? 'notice' : 'error') : 'sr-only'} data-testid="message">${message?.text ?? ''}</p>
      <${ErrorNote} error=${error} />
      ${accounts && where.view === 'accounts' && html`<${AccountsView} accounts=${accounts} account=${ready ? account : undefined} reloadAccounts=${reloadAccounts} reloadAccount=${reloadAccount} select=${(id) => go('accounts', id)} run=${run} />`}
      ${ready && where.view === 'data' && html`<${DataView} key=${accountId} account=${account} run=${run} />`}
      ${ready && where.view === 'runs' && html`<${RunsView} key=${accountId} account=${account} run=${run} />`}
      ${ready && where.view === 'upscales' && html`<${UpscalesView} key=${accountId} account=${account} run=${run} />`}
      ${ready && where.view === 'webhooks' && html`<${WebhooksView} key=${accountId} account=${account} run=${run} />`}
      ${ready && where.view === 'requests' && html`<${RequestsView} key=${accountId} account=${account} />`}
      ${accounts && accounts.length === 0 && html`<p class="notice">No account yet: create one in Accounts & keys.</p>`}
    </main>`;
}

const root = document.getElementById('app');
root.textContent = '';
render(html`<${App} />`, root);
