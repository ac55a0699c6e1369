// The Runs & clock and Upscales views: outcomes, starting a run or an upscale, and what each costs.
import { html, useEffect, useState } from '../vendor/preact-htm.js';
import { PAGE, control, api, act, useLive } from '../client.js';
import { Status, Json, when, useAsync, ErrorNote } from '../pieces.js';
import { Detail, query } from './data.js';

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

/** A run in one of these statuses is final (packages/contract/spec/openapi.yaml RunStatus): nothing left to stop. */
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

/** The key a write made from the console acts with: the account's `all` key, else one with the scope. */
const writerKey = (account, scope) => account.keys.find((k) => k.status === 'active' && k.name === 'all') ?? account.keys.find((k) => k.status === 'active' && k.scopes.includes(scope));

/** Start a run (POST /runs as the account's key, through the control plane's actions) with sensible defaults. */
function StartRun({ account, run, onStarted }) {
  const [choices] = useAsync(async () => {
    const [presets, products] = await Promise.all([api(account, '/presets', { limit: 100 }), api(account, '/products', { limit: 100 })]);
    return { presets: presets.body.data, products: products.body.data };
  }, [account.accountId]);
  const [form, setForm] = useState({ presetId: '', products: 2, perProduct: 1 });
  if (!choices.data) return html`<${ErrorNote} error=${choices.error} />`;
  const presetId = form.presetId || choices.data.presets.find((p) => p.modality === 'image')?.presetId || choices.data.presets[0]?.presetId;
  const key = writerKey(account, 'runs:write');
  const start = (e) => {
    e.preventDefault();
    run('Start run', async () => {
      const productIds = choices.data.products.slice(0, Number(form.products)).map((p) => p.productId);
      const out = await control('POST', `/accounts/${encodeURIComponent(account.accountId)}/actions`, { actor: { kind: 'api_key', apiKeyId: key.keyId }, operationId: 'createRun', body: { productIds, creativesPerProduct: Number(form.perProduct), presetId } });
      if (out.status >= 400) throw new Error(`${out.status} ${out.body?.code ?? ''}: ${out.body?.detail ?? ''}`);
      onStarted(out.body.runId);
    });
  };
  if (choices.data.products.length === 0) return html`<p class="muted">No products in this account: a run needs some (create the account with demo data).</p>`;
  return html`<form class="row" aria-label="Start a run" onSubmit=${start}>
    <strong>New run</strong>
    <label>Preset <select aria-label="Run preset" value=${presetId} onChange=${(e) => setForm({ ...form, presetId: e.target.value })}>${choices.data.presets.map((p) => html`<option value=${p.presetId}>${p.name} (${p.modality})</option>`)}</select></label>
    <label>First <input type="number" aria-label="Products in the run" min="1" max=${choices.data.products.length} style="width:4em" value=${form.products} onInput=${(e) => setForm({ ...form, products: e.target.value })} /> products</label>
    <label><input type="number" aria-label="Creatives per product" min="1" max="10" style="width:4em" value=${form.perProduct} onInput=${(e) => setForm({ ...form, perProduct: e.target.value })} /> per product</label>
    <button type="submit" disabled=${!key} title=${key ? `as key ${key.name}` : 'no active key with runs:write'}>Start run</button>
  </form>`;
}

export function RunsView({ account, run }) {
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
      <${StartRun} account=${account} run=${run} onStarted=${(runId) => { setSelected(runId); reloadRuns(); }} />
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

/** Start an upscale of a product's primary image (POST /upscales as the account's key) with sensible defaults. */
function StartUpscale({ account, run, onStarted }) {
  const [products] = useAsync(() => api(account, '/products', { limit: 100 }), [account.accountId]);
  const [form, setForm] = useState({ productId: '', target: '2K' });
  if (!products.data) return html`<${ErrorNote} error=${products.error} />`;
  const list = products.data.body.data;
  if (list.length === 0) return html`<p class="muted">No products in this account to upscale.</p>`;
  const productId = form.productId || list[0].productId;
  const key = writerKey(account, 'runs:write');
  const start = (e) => {
    e.preventDefault();
    run('Start upscale', async () => {
      const out = await control('POST', `/accounts/${encodeURIComponent(account.accountId)}/actions`, { actor: { kind: 'api_key', apiKeyId: key.keyId }, operationId: 'createUpscale', body: { source: { productId, image: 'primary' }, target: form.target } });
      if (out.status >= 400) throw new Error(`${out.status} ${out.body?.code ?? ''}: ${out.body?.detail ?? ''}`);
      onStarted(out.body.upscaleId);
    });
  };
  return html`<form class="row" aria-label="Start an upscale" onSubmit=${start}>
    <label>Product image <select aria-label="Product to upscale" value=${productId} onChange=${(e) => setForm({ ...form, productId: e.target.value })}>${list.map((p) => html`<option value=${p.productId}>${p.title}</option>`)}</select></label>
    <label>Target <select aria-label="Upscale target" value=${form.target} onChange=${(e) => setForm({ ...form, target: e.target.value })}><option value="2K">2K</option><option value="4K">4K</option></select></label>
    <button type="submit" disabled=${!key} title=${key ? `as key ${key.name}` : 'no active key with runs:write'}>Start upscale</button>
  </form>`;
}

/**
 * The account's upscales on the clock (GET /__mock/accounts/{id}/upscales: the API has no list of
 * them), newest first, a page at a time, filtered by status on the server; a result's asset with
 * its derivation chain.
 */
export function UpscalesView({ account, run }) {
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
      <p class="muted">Newest first, live. An upscale is made here, with <code>POST /upscales</code>, or from an asset's detail in Data; the clock's buttons move it on.</p>
      <${StartUpscale} account=${account} run=${run} onStarted=${(upscaleId) => { setSelected(upscaleId); reload(); }} />
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

/** An endpoint's chaos as a form (WebhookChaosPatch of the control document): duplicates, order, failures. */
