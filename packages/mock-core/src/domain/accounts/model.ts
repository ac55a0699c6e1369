/** Accounts, plans and API keys. Keys are stored hashed; the full key is shown once. */
import type { ControlSchemas, Schemas } from '../../../../contract/spec/types.ts';

export const SCOPES = ['read', 'runs:read', 'runs:write', 'creatives:write', 'creatives:review', 'assets:write', 'campaigns:write'] as const;
export type Scope = (typeof SCOPES)[number];

export const WRITE_SCOPES: readonly Scope[] = ['runs:write', 'creatives:review', 'creatives:write', 'assets:write', 'campaigns:write'];

export type PlanTier = ControlSchemas['PlanTier'];
export type ImageSize = Schemas['ImageSize'];

export interface Plan {
  tier: PlanTier;
  campaigns: boolean;
  webhooks: boolean;
  runsWrite: boolean;
  imageSizes: ImageSize[];
  upscales: boolean;
  campaignLimit: number;
  productsPerCampaign: number;
}

export interface ApiKeyRecord {
  keyId: string;
  accountId: string;
  name: string;
  /** sha256 of the full key, hex. The key itself is never stored. */
  hash: string;
  /** Last four characters, for display. */
  last4: string;
  scopes: Scope[];
  createdAt: number;
  /** Epoch ms; null for a read-only key (or a legacy runs:write key). */
  expiresAt: number | null;
  revokedAt: number | null;
}

export type ActorKind = 'api_key' | 'user' | 'share_link' | 'staff' | 'partner_operator';
export type Actor = { kind: 'api_key'; apiKeyId: string } | { kind: Exclude<ActorKind, 'api_key'> };
