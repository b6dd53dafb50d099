// The page-cache share of one instance database in a heap's budget (src/runtime/storage/pageCache.ts).
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { MAX_CACHE_KIB, MIN_CACHE_KIB, pageCacheShareKiB } from '../../../../src/runtime/storage/pageCache';

describe('page-cache share', () => {
  it("keeps SQLite's default cache while few databases share the budget", () => {
    assert.equal(pageCacheShareKiB(16 * 1024, 1), MAX_CACHE_KIB);
    assert.equal(pageCacheShareKiB(16 * 1024, 8), MAX_CACHE_KIB);
    assert.equal(pageCacheShareKiB(16 * 1024, 0), MAX_CACHE_KIB);
  });

  it('divides the budget in powers of two as databases open, never below the floor', () => {
    assert.equal(pageCacheShareKiB(16 * 1024, 9), 1024);
    assert.equal(pageCacheShareKiB(16 * 1024, 100), 128);
    assert.equal(pageCacheShareKiB(16 * 1024, 128), 128);
    assert.equal(pageCacheShareKiB(16 * 1024, 1000), MIN_CACHE_KIB);
    let previous = Infinity;
    for (let open = 1; open <= 300; open++) {
      const share = pageCacheShareKiB(16 * 1024, open);
      assert.ok(share <= previous, `the share never grows as more open (${open})`);
      assert.ok(share >= MIN_CACHE_KIB && share <= MAX_CACHE_KIB);
      if (share > MIN_CACHE_KIB) assert.ok(share * open <= 16 * 1024, `within the budget at ${open}`);
      previous = share;
    }
  });
});
