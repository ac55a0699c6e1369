#!/usr/bin/env bash
# Regenerates the mock's video clips (packages/mock-core/src/media/clips/*.webm, D49): one short WebM (VP8, no
# audio) per delivery ratio, long edge 320 px, that any browser's <video> plays. The clips are
# committed; only this script needs ffmpeg (`apt-get install ffmpeg`), never npm ci or CI.
#
#   bash scripts/media-clips.sh            # rewrites packages/mock-core/src/media/clips/
#
# ffmpeg's testsrc2 pattern (moving colours and a running counter) needs no font. The output is
# deterministic for a given ffmpeg build (-bitexact, fixed seeds); commit whatever it writes.
set -euo pipefail
cd "$(dirname "$0")/.."
out=packages/mock-core/src/media/clips
mkdir -p "$out"
# ratio  width  height (exactly the ratio, even sizes for 4:2:0)
while read -r name w h; do
  ffmpeg -nostdin -hide_banner -loglevel error -y \
    -f lavfi -i "testsrc2=size=${w}x${h}:rate=12:duration=2" \
    -c:v libvpx -b:v 80k -crf 30 -deadline good -cpu-used 4 -g 24 -auto-alt-ref 0 \
    -pix_fmt yuv420p -an -bitexact -fflags +bitexact -flags +bitexact -map_metadata -1 \
    "$out/$name.webm"
  echo "$out/$name.webm $(stat -c %s "$out/$name.webm") bytes"
done <<'LIST'
1x1 320 320
4x5 256 320
9x16 180 320
16x9 320 180
2x3 212 318
3x2 318 212
4x3 320 240
3x4 240 320
LIST
