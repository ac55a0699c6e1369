// The Events & webhooks view: endpoints, deliveries and their chaos.
import { html, useState } from '../vendor/preact-htm.js';
import { control, useDocuments, useLive } from '../client.js';
import { Status, Json, when, CopyButton, useAsync, ErrorNote } from '../pieces.js';

function ChaosFields({ chaos, onChange, idPrefix }) {
  return html`<fieldset class="row"><legend>Chaos</legend>
    <label>Fail the first <input type="number" aria-label=${`${idPrefix} fail first attempts`} min="0" max="1000" style="width:4em" value=${chaos.failFirst} onInput=${(e) => onChange({ ...chaos, failFirst: e.target.value })} /> attempts</label>
    <label>Extra copies <input type="number" aria-label=${`${idPrefix} duplicate copies`} min="0" max="10" style="width:4em" value=${chaos.duplicate} onInput=${(e) => onChange({ ...chaos, duplicate: e.target.value })} /></label>
    <label><input type="checkbox" aria-label=${`${idPrefix} out of order`} checked=${chaos.outOfOrder} onChange=${(e) => onChange({ ...chaos, outOfOrder: e.target.checked })} /> Out of order</label>
  </fieldset>`;
}
const chaosBody = (chaos) => ({ failFirst: Number(chaos.failFirst), duplicate: Number(chaos.duplicate), outOfOrder: chaos.outOfOrder });

export function WebhooksView({ account, run }) {
  const id = encodeURIComponent(account.accountId);
  const [endpoints, reloadEndpoints] = useAsync(() => control('GET', `/accounts/${id}/webhook-endpoints`), [id]);
  const [log, reloadLog] = useAsync(() => control('GET', `/accounts/${id}/webhook-deliveries?limit=100`), [id]);
  const [events, reloadEvents] = useAsync(() => control('GET', `/accounts/${id}/events?limit=100`), [id]);
  const docs = useDocuments();
  const EVENT_TYPES = docs?.eventTypes ?? [];
  const [form, setForm] = useState({ url: '', types: [], chaos: { failFirst: 0, duplicate: 0, outOfOrder: false } });
  const [editing, setEditing] = useState();
  const [pending, reloadPending] = useAsync(() => control('GET', `/accounts/${id}/webhook-deliveries/pending`), [id]);
  useLive('delivery', reloadPending);
  useLive('event', reloadPending);
  useLive('clock', reloadPending);
  const [secret, setSecret] = useState();
  const [open, setOpen] = useState();
  useLive('delivery', reloadLog);
  useLive('event', reloadEvents);
  const add = (e) => {
    e.preventDefault();
    run('Add endpoint', async () => {
      const out = await control('POST', `/accounts/${id}/webhook-endpoints`, { url: form.url, eventTypes: form.types, chaos: chaosBody(form.chaos) });
      setSecret(out);
      reloadEndpoints();
    });
  };
  return html`
    <section class="card" aria-labelledby="endpoints-h">
      <h2 id="endpoints-h">Webhook endpoints</h2>
      <${ErrorNote} error=${endpoints.error} />
      <table><caption class="sr-only">Endpoints</caption><thead><tr><th scope="col">Endpoint</th><th scope="col">URL</th><th scope="col">Events</th><th scope="col">Chaos</th><th scope="col">Enabled</th><th scope="col">Actions</th></tr></thead>
        <tbody>${(endpoints.data?.data ?? []).map((ep) => html`<tr><td class="mono">${ep.endpointId}</td><td class="mono">${ep.url}</td><td>${ep.eventTypes.join(', ')}</td><td>${ep.chaos.failFirst ? `fails first ${ep.chaos.failFirst}` : ''}${ep.chaos.duplicate ? ` · ${ep.chaos.duplicate} extra` : ''}${ep.chaos.outOfOrder ? ' · out of order' : ''}${!ep.chaos.failFirst && !ep.chaos.duplicate && !ep.chaos.outOfOrder ? 'none' : ''}
            ${editing?.endpointId === ep.endpointId ? html`<form aria-label=${`Chaos of ${ep.endpointId}`} onSubmit=${(e) => { e.preventDefault(); run('Chaos', async () => { await control('PATCH', `/accounts/${id}/webhook-endpoints/${ep.endpointId}`, { chaos: chaosBody(editing.chaos) }); setEditing(undefined); reloadEndpoints(); }); }}>
              <${ChaosFields} chaos=${editing.chaos} idPrefix=${ep.endpointId} onChange=${(chaos) => setEditing({ ...editing, chaos })} /><button type="submit">Save chaos</button></form>`
            : html` <button type="button" class="secondary" aria-label=${`Edit chaos of ${ep.endpointId}`} onClick=${() => setEditing({ endpointId: ep.endpointId, chaos: { ...ep.chaos } })}>Edit</button>`}</td><td>${String(ep.enabled)}</td>
          <td class="row"><button type="button" class="secondary" onClick=${() => run('Enable/disable', async () => { await control('PATCH', `/accounts/${id}/webhook-endpoints/${ep.endpointId}`, { enabled: !ep.enabled }); reloadEndpoints(); })}>${ep.enabled ? 'Disable' : 'Enable'}</button>
          <button type="button" class="danger" aria-label=${`Remove ${ep.endpointId}`} onClick=${() => run('Remove endpoint', async () => { await control('DELETE', `/accounts/${id}/webhook-endpoints/${ep.endpointId}`); reloadEndpoints(); })}>Remove</button></td></tr>`)}</tbody></table>
      <form class="row" aria-label="Add an endpoint" onSubmit=${add}>
        <label>URL (loopback) <input type="url" required style="width:22em" value=${form.url} onInput=${(e) => setForm({ ...form, url: e.target.value })} /></label>
        <fieldset class="row event-types"><legend>Event types (at least one)</legend>${EVENT_TYPES.map((t) => html`<label><input type="checkbox" checked=${form.types.includes(t)} onChange=${(e) => setForm({ ...form, types: e.target.checked ? [...form.types, t] : form.types.filter((x) => x !== t) })} /> ${t}</label>`)}
          <button type="button" class="secondary" onClick=${() => setForm({ ...form, types: form.types.length === EVENT_TYPES.length ? [] : [...EVENT_TYPES] })}>${form.types.length === EVENT_TYPES.length ? 'None' : 'All'}</button></fieldset>
        <${ChaosFields} chaos=${form.chaos} idPrefix="New endpoint" onChange=${(chaos) => setForm({ ...form, chaos })} />
        <button type="submit" disabled=${form.types.length === 0}>Add endpoint</button>
      </form>
      ${secret && html`<p class="notice" role="status">Signing secret of <code>${secret.endpointId}</code> (shown only now): <code data-testid="endpoint-secret">${secret.secret}</code> <${CopyButton} text=${secret.secret} label="Copy the signing secret" /></p>`}
    </section>
    <section class="card" aria-labelledby="pending-h">
      <h2 id="pending-h">Pending deliveries</h2>
      <p class="muted">Waiting for the processing delay or a retry; due on the mock's clock (the header's buttons move it).</p>
      <${ErrorNote} error=${pending.error} />
      ${(pending.data?.data ?? []).length === 0 ? html`<p class="muted" data-testid="no-pending">None pending.</p>` : html`<table><caption class="sr-only">Pending deliveries</caption><thead><tr><th scope="col">Event</th><th scope="col">Endpoint</th><th scope="col">Attempts so far</th><th scope="col">Due (clock)</th></tr></thead>
        <tbody>${pending.data.data.map((d) => html`<tr data-pending-id=${d.deliveryId ?? d.eventId}><td>${d.type} <span class="mono muted">${d.eventId}</span></td><td class="mono">${d.endpointId}</td><td>${d.attempts}</td><td data-testid="pending-due">${d.dueAt ? when(d.dueAt) : 'on the wire'}</td></tr>`)}</tbody></table>`}
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
