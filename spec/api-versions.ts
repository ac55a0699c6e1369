/** The versions of the API a process can read (`--api-version`, CONFORMANCE_API_VERSION): no Node-only module, for the in-process mock too. */
export const API_VERSIONS = ['current', 'next'] as const;
export type ApiVersion = (typeof API_VERSIONS)[number];

export function parseApiVersion(raw: string | undefined, source: string): ApiVersion {
  if (raw === undefined || raw === '') return 'current';
  const found = API_VERSIONS.find((v) => v === raw);
  if (found === undefined) throw new Error(`${source} is ${API_VERSIONS.join(' or ')}, not ${JSON.stringify(raw)}`);
  return found;
}
