// The Accounts & keys view: accounts, plans, keys, credits, faults and rate limits.
import { html, useState } from '../vendor/preact-htm.js';
import { control, useDocuments } from '../client.js';
import { Status, when, Toggle, CopyButton, useAsync, ErrorNote } from '../pieces.js';

// --- views ---------------------------------------------------------------------------------------
export function AccountsView({ accounts, account, reloadAccounts, reloadAccount, select, run }) {
  const docs = useDocuments();
  const SCOPES = docs?.scopes ?? [];
  const TIERS = docs?.tiers ?? [];
  const LIMITS = docs?.limits ?? [];
  const [minted] = useAsync(() => (account ? control('GET', `/accounts/${encodeURIComponent(account.accountId)}/keys/minted`) : Promise.resolve(undefined)), [account?.accountId, account]);
  const mintedValue = (keyId) => minted.data?.data.find((k) => k.keyId === keyId)?.key;
  const [scenarioOut, setScenarioOut] = useState();
  const loadScenarioFile = (e) => {
    e.preventDefault();
    const file = e.target.elements.scenarioFile.files[0];
    if (!file) return;
    run('Load scenario', async () => {
      const text = await file.text();
      try {
        const out = await control('POST', '/scenarios', { text, name: file.name });
        setScenarioOut({ ok: true, out });
        await reloadAccounts();
        if (out.accounts[0]) select(out.accounts[0].accountId);
      } catch (error) {
        setScenarioOut({ ok: false, problems: error.body?.errors ?? [{ field: '(the file)', message: error.message }], name: file.name });
        throw error;
      }
    });
  };
  const exportScenario = () =>
    run('Export scenario', async () => {
      const out = await control('GET', `/accounts/${encodeURIComponent(account.accountId)}/scenario`);
      const link = document.createElement('a');
      link.href = URL.createObjectURL(new Blob([out.text], { type: 'application/yaml' }));
      link.download = `${account.accountId}.scenario.yaml`;
      link.click();
      URL.revokeObjectURL(link.href);
    });
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
      <form class="row" onSubmit=${loadScenarioFile} aria-label="Load a scenario">
        <label>Scenario file (YAML or JSON) <input type="file" name="scenarioFile" accept=".yaml,.yml,.json" aria-label="Scenario file" /></label>
        <button type="submit">Load scenario</button>
        <a href="https://github.com/creative-generation/contract-toolkit/blob/main/docs/frontend.md#scenario-files" class="muted">format</a>
      </form>
      ${scenarioOut?.ok === false && html`<div class="error" role="alert" data-testid="scenario-errors"><p>${scenarioOut.name} was not loaded:</p><ul>${scenarioOut.problems.map((p) => html`<li><code>${p.line !== undefined ? `line ${p.line}: ` : ''}${p.field}</code> ${p.message}</li>`)}</ul></div>`}
      ${scenarioOut?.ok && html`<div class="notice" role="status" data-testid="scenario-loaded"><p>Scenario loaded: ${scenarioOut.out.accounts.map((a) => html`<code>${a.accountId}</code> (${a.name}) `)}; ${scenarioOut.out.steps} steps. Their keys are in Accounts & keys (Copy).</p></div>`}
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
      <dl class="facts" aria-label="What the account holds">${Object.entries(account.counts).filter(([k]) => docs?.collections.includes(k)).map(([k, v]) => html`<dt>${k}</dt><dd>${v}</dd>`)}</dl>
      <div class="row"><button type="button" class="secondary" onClick=${exportScenario}>Export as a scenario</button></div>
    </section>
    <section class="card" aria-labelledby="keys-h">
      <h3 id="keys-h">Keys</h3>
      <table><caption class="sr-only">The account's keys</caption>
        <thead><tr><th scope="col">Key id</th><th scope="col">Name</th><th scope="col">Key</th><th scope="col">Scopes</th><th scope="col">Status</th><th scope="col">Expires</th><th scope="col">Actions</th></tr></thead>
        <tbody>${account.keys.map((k) => html`<tr data-key-id=${k.keyId}>
          <td class="mono">${k.keyId}</td><td>${k.name}</td><td class="mono">${mintedValue(k.keyId) ? html`<span data-testid=${`key-value-${k.name}`}>${mintedValue(k.keyId)}</span> <${CopyButton} text=${mintedValue(k.keyId)} label=${`Copy the ${k.name} key`} />` : `…${k.last4}`}</td><td>${k.scopes.join(', ')}</td><td><${Status} value=${k.status} /></td><td>${when(k.expiresAt)}</td>
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
