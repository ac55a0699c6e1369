// The Data view: the API's collections, a row's detail and the actions of other actors.
import { html, useState } from '../vendor/preact-htm.js';
import { PAGE, control, api, act, useLive } from '../client.js';
import { Status, Json, when, Thumb, useAsync, ErrorNote } from '../pieces.js';

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
  const [generated, setGenerated] = useState();
  const size = 20;
  const [page, reload] = useAsync(() => control('GET', `/accounts/${encodeURIComponent(account.accountId)}/campaigns/${encodeURIComponent(campaignId)}/creatives?limit=${size}&offset=${offset}`), [account.accountId, campaignId, offset]);
  useLive('event', (d) => d.event.resource.kind === 'creative' && reload());
  return html`<h4>Creatives of this campaign</h4>
    <${ErrorNote} error=${page.error} />
    <div class="row"><button type="button" class="secondary" onClick=${() => run('Generate creatives', async () => {
      const out = await control('POST', `/accounts/${encodeURIComponent(account.accountId)}/actions`, { actor: { kind: 'user' }, action: 'generateCreatives', input: { campaignId } });
      if (out.status >= 400) throw new Error(`${out.status} ${out.body?.code ?? ''}`);
      reload();
      const n = out.body.creativeIds.length;
      setGenerated(n === 0 ? 'Nothing to generate: the campaign has no creative waiting for generation (NOT_GENERATED).' : `${n} creative${n === 1 ? '' : 's'} generated: now PENDING (readable in the API, waiting for review).`);
    })}>Generate its creatives (dashboard)</button></div>
    ${generated && html`<p class="notice" role="status" data-testid="generated">${generated}</p>`}
    ${page.data && html`<table><caption class="sr-only">The campaign's creatives</caption><thead><tr><th scope="col">Creative</th><th scope="col">Status</th><th scope="col">Media</th><th scope="col">In the API</th></tr></thead>
      <tbody>${page.data.data.map((c) => html`<tr data-campaign-creative=${c.creativeId}><td class="mono">${c.creativeId}</td><td><${Status} value=${c.deletedAt ? 'deleted' : c.status} /></td><td>${c.mediaType}</td><td>${c.readable ? 'yes' : 'no'}</td></tr>`)}</tbody></table>
      <div class="row"><button type="button" class="secondary" disabled=${offset === 0} onClick=${() => setOffset(Math.max(0, offset - size))}>Previous creatives</button>
      <span>${page.data.total === 0 ? 'none' : `${offset + 1}–${Math.min(offset + size, page.data.total)} of ${page.data.total}`}</span>
      <button type="button" class="secondary" disabled=${offset + size >= page.data.total} onClick=${() => setOffset(offset + size)}>More creatives</button></div>`}`;
}

export function Detail({ account, kind, row, run, onChanged }) {
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
      ${ACTIONS[kind].filter(([, , operationId]) => !(state.data?.body?.status === 'APPROVED' && operationId === 'approveCreative') && !(state.data?.body?.status === 'REJECTED' && operationId === 'rejectCreative')).map(([label, actor, operationId, param, body]) => html`<button type="button" class="secondary" onClick=${() => run(label, async () => {
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
export function query(values) {
  const search = new URLSearchParams(Object.entries(values).filter(([, v]) => v !== undefined && v !== '' && v !== null && v !== false).map(([k, v]) => [k, String(v)]));
  return search.size ? `?${search}` : '';
}

export function DataView({ account, run }) {
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
