import { describe, expect, it } from 'vitest';
import { salvageJsonObject } from '../../src/services/durableJson';

describe('salvageJsonObject', () => {
  it('keeps the members and elements that still parse of a file cut short', () => {
    const whole = JSON.stringify({ version: 1, pending: [{ key: 'a' }, { key: 'b, with "quotes" and } braces' }, { key: 'c' }], done: [{ key: 'd' }] });
    const cut = whole.slice(0, whole.indexOf('"c"') + 2);
    expect(salvageJsonObject(cut)).toEqual({ version: 1, pending: [{ key: 'a' }, { key: 'b, with "quotes" and } braces' }] });
  });

  it('skips garbage inside an array or object and keeps the rest', () => {
    const text = '{"version":1,"pending":[{"key":"a"},{"key":\u0000garbage},{"key":"c"}],"ledgers":{"x":{"n":1},"y":{oops},"z":{"n":3}}}';
    expect(salvageJsonObject(text)).toEqual({ version: 1, pending: [{ key: 'a' }, { key: 'c' }], ledgers: { x: { n: 1 }, z: { n: 3 } } });
  });

  it('gives up on text that does not start an object', () => {
    expect(salvageJsonObject('garbage')).toBeUndefined();
  });
});
