/** The versions of the API a process can read (`--api-version`, CONFORMANCE_API_VERSION): no Node-only module, for the in-process mock too. */
export const API_VERSIONS = ['current', 'next'] as const;
export type ApiVersion = (typeof API_VERSIONS)[number];

export function parseApiVersion(raw: string | undefined, source: string): ApiVersion {
  if (raw === undefined || raw === '') return 'current';
  const found = API_VERSIONS.find((v) => v === raw);
  if (found === undefined) throw new Error(`${source} is ${API_VERSIONS.join(' or ')}, not ${JSON.stringify(raw)}`);
  return found;
}

/**
 * The document version of a process, chosen once: the entry point passes it in (`chooseApiVersion`,
 * packages/mock/src/node/main.ts) before it loads anything that reads packages/contract/spec/contract.ts; packages/contract/spec/contract.ts
 * reads it once when it loads (`chosenApiVersion`). Nothing chosen: CGS_API_VERSION, else
 * CONFORMANCE_API_VERSION (the suite's), else current. A choice that comes after the read and
 * differs from it throws: the version no longer depends silently on the order of imports.
 */
export interface VersionChoice {
  choose(version: ApiVersion): void;
  read(): ApiVersion;
}

export function versionChoice(env: Readonly<Record<string, string | undefined>>): VersionChoice {
  let chosen: ApiVersion | undefined;
  let readAs: ApiVersion | undefined;
  return {
    choose(version) {
      if (readAs !== undefined && readAs !== version) {
        throw new Error(`the document version '${version}' was chosen after packages/contract/spec/contract.ts loaded the '${readAs}' document: choose it before loading anything that reads packages/contract/spec/contract.ts`);
      }
      chosen = version;
    },
    read() {
      readAs ??= chosen ?? parseApiVersion(env['CGS_API_VERSION'] || env['CONFORMANCE_API_VERSION'] || undefined, 'CGS_API_VERSION (or CONFORMANCE_API_VERSION)');
      return readAs;
    },
  };
}

const processChoice = versionChoice((globalThis as { process?: { env?: Record<string, string | undefined> } }).process?.env ?? {});

/** Choose this process's document version; throws when packages/contract/spec/contract.ts already loaded another. */
export function chooseApiVersion(version: ApiVersion): void {
  processChoice.choose(version);
}

/** This process's document version (read by packages/contract/spec/contract.ts when it loads). */
export function chosenApiVersion(): ApiVersion {
  return processChoice.read();
}
