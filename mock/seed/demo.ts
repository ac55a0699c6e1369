/** Deterministic demo data (faker with a fixed seed). */
import { Faker, en } from '@faker-js/faker';
import type { AccountState } from '../store.ts';
import { nextId } from '../store.ts';

export interface SeedOptions {
  now: number;
  seed: number;
}

export function seedAccount(account: AccountState, options: SeedOptions): void {
  const faker = new Faker({ locale: [en] });
  faker.seed(options.seed);
  const brandIds: string[] = [];
  for (let b = 0; b < 2; b++) {
    const brandId = nextId(account, 'brd');
    account.brands.set(brandId, { brandId, name: faker.company.name() });
    brandIds.push(brandId);
  }
  for (let i = 0; i < 60; i++) {
    const productId = nextId(account, 'prd');
    const sku = i % 10 === 3 ? null : i % 10 === 7 ? 'MPN-SHARED-01' : `MPN-${faker.string.alphanumeric({ length: 6, casing: 'upper' })}`;
    account.products.set(productId, {
      productId,
      brandId: brandIds[i % brandIds.length]!,
      sku,
      title: faker.commerce.productName(),
      primaryImageUrl: `https://media.creative-generation.invalid/${productId}/primary.jpg`,
      primaryImageWidth: 1024,
      primaryImageHeight: 1024,
      galleryImageUrls: Array.from({ length: i % 5 }, (_, g) => `https://media.creative-generation.invalid/${productId}/gallery-${g}.jpg`),
      createdAt: options.now - (60 - i) * 3600_000,
    });
  }
}
