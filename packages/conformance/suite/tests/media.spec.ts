/**
 * Media locations (MEDIA-*). Pinned: a `url` is an absolute URL ("media location"). Decided (D49,
 * @assumed): where the media live, their formats and sizes are the implementation's; the mock
 * serves every URL it hands out on its own origin without a key, so against the local mock each
 * one must load (200, an image or video type, a player page in HTML), and a video's embedCode is
 * an iframe of its player in the creative's ratio (#17 item 10). Against another target the
 * loading check is skipped with its reason: a real deployment may host media anywhere, behind
 * anything.
 */
import { expect, skipWhenAbsent, test } from '../fixtures/index.ts';
import { allAssets, allCreatives, mediaUrls } from '../fixtures/resources.ts';

test('MEDIA-001 CRTV-003 ASST-001 every media location of creatives, assets and deliveries is an absolute URL', { tag: ['@area:creatives', '@area:assets', '@area:deliveries'] }, async ({ api }) => {
  const urls = await mediaUrls(api, false);
  skipWhenAbsent(urls.length === 0, 'the account has no creative, asset or delivery');
  for (const { where, field, url } of urls) {
    let parsed: URL | undefined;
    try {
      parsed = new URL(url);
    } catch {
      parsed = undefined;
    }
    expect(parsed && /^https?:$/.test(parsed.protocol) && parsed.host.length > 0, `${field} of ${where} is an absolute http(s) URL: ${url}`).toBe(true);
  }
});

test('MEDIA-002 every media URL loads without a key: 200 with an image or video type, a player page in HTML', { tag: ['@assumed', '@area:products', '@area:creatives', '@area:assets', '@area:deliveries'] }, async ({ api, target, playwright }) => {
  test.skip(!target.localMock, 'D49: run only when the target is the local mock, because where media live is decided for the mock only; a real deployment may host them anywhere');
  // Six of each field of each kind of resource (several hundred 1024-pixel pictures would only
  // repeat the same check): every format and every kind of URL is fetched.
  const perGroup = new Map<string, number>();
  const urls = (await mediaUrls(api, true)).filter(({ where, field }) => {
    const group = `${where.split(' ')[0]} ${field}`;
    perGroup.set(group, (perGroup.get(group) ?? 0) + 1);
    return perGroup.get(group)! <= 6;
  });
  skipWhenAbsent(urls.length === 0, 'the account has no media');
  expect(urls.some((u) => u.field === 'playerUrl'), 'the account has a video').toBe(true);
  const browserLike = await playwright.request.newContext(); // no Authorization, like an <img> tag
  try {
    for (const { where, field, url } of urls) {
      const res = await browserLike.get(url);
      const type = res.headers()['content-type'] ?? '';
      expect(res.status(), `${field} of ${where}: ${url}`).toBe(200);
      if (field === 'playerUrl') expect(type, `${field} of ${where}`).toMatch(/^text\/html/);
      else expect(type, `${field} of ${where}`).toMatch(/^(image|video)\//);
      expect((await res.body()).length, `${field} of ${where} has bytes`).toBeGreaterThan(0);
    }
  } finally {
    await browserLike.dispose();
  }
});

function ratioValue(ratio: string): number {
  const [w, h] = ratio.split(':').map(Number) as [number, number];
  return w / h;
}

test('MEDIA-003 CRTV-006 a video\'s embedCode is an iframe of its player, sized in the creative\'s or asset\'s ratio', { tag: ['@assumed', '@area:creatives', '@area:assets'] }, async ({ api }) => {
  const videos = [
    ...(await allCreatives(api)).filter((c) => c.mediaType === 'video').map((c) => ({ where: `creative ${c.creativeId}`, embedCode: c.embedCode, playerUrl: c.playerUrl, ratio: ratioValue(c.aspectRatio ?? '1:1') })),
    ...(await allAssets(api)).filter((a) => a.type === 'VIDEO' && a.embedCode !== null).map((a) => ({ where: `asset ${a.assetId}`, embedCode: a.embedCode, playerUrl: a.playerUrl, ratio: a.width / a.height })),
  ];
  skipWhenAbsent(videos.length === 0, 'the account has no video');
  for (const v of videos) {
    const iframe = /<iframe\b[^>]*>/i.exec(v.embedCode ?? '')?.[0];
    expect(iframe, `embedCode of ${v.where} is an iframe: ${v.embedCode}`).toBeDefined();
    const attr = (name: string): string | undefined => new RegExp(`\\b${name}="([^"]*)"`, 'i').exec(iframe!)?.[1];
    expect(attr('src'), `the iframe of ${v.where} embeds its playerUrl`).toBe(v.playerUrl);
    const width = Number(attr('width'));
    const height = Number(attr('height'));
    expect(width > 0 && height > 0, `the iframe of ${v.where} declares its width and height: ${iframe}`).toBe(true);
    expect(Math.abs(width / height / v.ratio - 1), `${width}×${height} of ${v.where} is in its ratio`).toBeLessThan(0.01);
  }
});
