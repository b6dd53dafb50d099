import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { parsePreviewTiming, previewTimingText } from '../../../../src/core/browserRendering/previewProtocol';

describe('the preview timing line', () => {
  it('reads back what it wrote, to a tenth of a millisecond', () => {
    const timing = { clickToShownMs: 152.34, extensionMs: 123.08, restMs: 121.91, arrivedToShownMs: 9.2, messagingMs: 20.06, bytes: 9539 };
    const line = `2026-11-25T01:00:00.000Z info [render] ${previewTimingText(timing)}`;
    assert.deepEqual(parsePreviewTiming(line), {
      clickToShownMs: 152.3,
      extensionMs: 123.1,
      restMs: 121.9,
      arrivedToShownMs: 9.2,
      messagingMs: 20.1,
      bytes: 9539,
    });
  });

  it('reads nothing from another line', () => {
    assert.equal(parsePreviewTiming('[render] screenshot through the local emulator: 9539 bytes, 40 browser ms'), undefined);
  });
});
