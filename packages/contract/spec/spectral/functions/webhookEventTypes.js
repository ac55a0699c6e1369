import { isObject } from '../oas.js';

// The keys of $.webhooks are exactly the values of $.components.schemas.EventType.enum.
// Given the document root.
export default function webhookEventTypes(root) {
  const webhooks = isObject(root?.webhooks) ? Object.keys(root.webhooks) : [];
  const enumValues = root?.components?.schemas?.EventType?.enum;
  if (!Array.isArray(enumValues)) {
    return [{ message: '`components.schemas.EventType.enum` must list the event types.', path: ['components', 'schemas', 'EventType'] }];
  }
  return [
    ...webhooks
      .filter((key) => !enumValues.includes(key))
      .map((key) => ({ message: `Webhook \`${key}\` is not a value of EventType.`, path: ['webhooks', key] })),
    ...enumValues
      .filter((value) => !webhooks.includes(value))
      .map((value) => ({ message: `EventType \`${String(value)}\` has no webhook.`, path: ['webhooks'] })),
  ];
}
