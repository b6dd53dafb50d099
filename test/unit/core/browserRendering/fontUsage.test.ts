// The font report by font: each platform font once, with the elements it drew.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { fontUsage } from '../../../../src/core/browserRendering/fontUsage';
import type { RenderedElement } from '../../../../src/core/browserRendering/previewProtocol';

const element = (
  selector: string,
  requested: string[],
  fonts: [family: string, requestedAs: string | null, glyphs?: number][],
  custom = false,
): RenderedElement => ({
  selector,
  text: selector,
  requested,
  fonts: fonts.map(([family, requestedAs, glyphs]) => ({ family, custom, glyphs: glyphs ?? 1, requestedAs })),
  fallback: fonts.some(([, requestedAs]) => requestedAs !== requested[0]),
});

describe('fonts by use', () => {
  it('lists each platform font once, with every element it drew, in the order they first draw', () => {
    const usage = fontUsage([
      element('h1', ['FreeMono', 'sans-serif'], [['FreeMono', 'FreeMono']]),
      element(
        'p:nth-of-type(1)',
        ['FreeMono', 'sans-serif'],
        [
          ['FreeMono', 'FreeMono'],
          ['Noto Sans CJK SC', 'sans-serif'],
        ],
      ),
      element(
        'p:nth-of-type(2)',
        ['FreeMono', 'sans-serif'],
        [
          ['FreeMono', 'FreeMono'],
          ['Noto Color Emoji', 'sans-serif'],
        ],
      ),
    ]);
    assert.deepEqual(
      usage.map((u) => [u.family, u.elements.map((e) => e.selector), u.standsFor, u.fallbackIn]),
      [
        ['FreeMono', ['h1', 'p:nth-of-type(1)', 'p:nth-of-type(2)'], ['FreeMono'], 0],
        ['Noto Sans CJK SC', ['p:nth-of-type(1)'], ['sans-serif'], 1],
        ['Noto Color Emoji', ['p:nth-of-type(2)'], ['sans-serif'], 1],
      ],
    );
  });

  it('counts an element once when it lists a family once per face', () => {
    const usage = fontUsage([
      element(
        'p',
        ['sans-serif'],
        [
          ['Liberation Sans', 'sans-serif', 7],
          ['Liberation Sans', 'sans-serif', 4],
        ],
      ),
    ]);
    assert.deepEqual(
      usage.map((u) => [u.family, u.elements.length]),
      [['Liberation Sans', 1]],
    );
  });

  it('keeps a web font apart from an installed font of the same name, and says what stands in', () => {
    const usage = fontUsage([
      element('h1', ['Injected', 'sans-serif'], [['FreeMono', 'Injected']], true),
      element('p', ['FreeMono'], [['FreeMono', 'FreeMono']]),
      {
        selector: 'td',
        text: 'x',
        requested: ['Arial'],
        fonts: [{ family: 'Liberation Sans', custom: false, glyphs: 1, requestedAs: 'Arial', standIn: true }],
        fallback: false,
      },
    ]);
    assert.deepEqual(
      usage.map((u) => [u.family, u.custom, u.standsFor, u.standIn]),
      [
        ['FreeMono', true, ['Injected'], false],
        ['FreeMono', false, ['FreeMono'], false],
        ['Liberation Sans', false, ['Arial'], true],
      ],
    );
  });
});
