/**
 * The preset catalog (RUN-016, RUN-017, RUN-019, D13): small and global, the same for every
 * account. A preset serves one modality; `presetId` is the value sent when creating a run.
 */
import { Collection } from '../../core/collection.ts';
import type { Modality } from '../credits/ratecard.ts';

export interface Preset {
  presetId: string;
  name: string;
  modality: Modality;
  description: string;
}

const PRESETS: readonly Preset[] = [
  { presetId: 'pst_studio_white', name: 'Studio white', modality: 'image', description: 'The product on a seamless white studio background, soft shadows.' },
  { presetId: 'pst_lifestyle', name: 'Lifestyle scene', modality: 'image', description: 'The product in use in a natural, everyday setting.' },
  { presetId: 'pst_flat_lay', name: 'Flat lay', modality: 'image', description: 'Top-down arrangement of the product with complementary props.' },
  { presetId: 'pst_seasonal', name: 'Seasonal campaign', modality: 'image', description: 'The product staged for the current season, with a bold colour backdrop.' },
  { presetId: 'pst_social_video', name: 'Short social video', modality: 'video', description: 'A 15-second vertical clip for social placements.' },
  { presetId: 'pst_showcase_video', name: '360° showcase', modality: 'video', description: 'A slow turntable reveal of the product.' },
];

/** The catalog as a collection, for the shared list pagination. Never written after load. */
export const presets: Collection<Preset> = new Collection();
for (const preset of PRESETS) presets.set(preset.presetId, preset);

export function findPreset(presetId: string): Preset | undefined {
  return presets.get(presetId);
}

export function presentPreset(p: Preset): Record<string, unknown> {
  return { object: 'preset', presetId: p.presetId, name: p.name, modality: p.modality, description: p.description };
}
