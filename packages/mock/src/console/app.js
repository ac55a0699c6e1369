// The mock's console: a client of the control plane (/__mock, packages/contract/spec/mock-control.yaml) and of the
// public API (/api/public/v1, packages/contract/spec/openapi.yaml, with a read key the console makes for itself
// through the control plane), and of nothing else. Plain ES modules, no build step; the UI library
// is htm's Preact build, served by the mock from node_modules (packages/mock/src/console/serve.ts).
// The page: its views, chosen by the URL's hash, in the files under views/; client.js and
// pieces.js hold what they share.
import { html, render, useCallback, useEffect, useState } from './vendor/preact-htm.js';
import { control, keyPromises, useLive, openStream } from './client.js';
import { ErrorNote, useRunner, Clock } from './pieces.js';
import { AccountsView } from './views/accounts.js';
import { DataView } from './views/data.js';
import { RunsView, UpscalesView } from './views/generation.js';
import { WebhooksView } from './views/webhooks.js';
import { RequestsView } from './views/requests.js';

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
    keyPromises.clear();
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
