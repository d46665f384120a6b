// The value transfer of js.call, evaluated once per call inside the function
// the driver builds: encode turns a JavaScript value into JSON the client
// decodes (keeping what JSON cannot: undefined, NaN, ±Infinity, -0, BigInt,
// Date, RegExp, URL, Error, typed arrays, shared and cyclic references),
// decode does the reverse for the argument, with {h: i} naming handles[i].
// It reads builtins once, at the call's start, from a fresh realm-independent
// source where it can, so a page that replaced Map or Date does not break it.
() => {
  const isArr = Array.isArray;
  const toStr = Object.prototype.toString;
  const kindOf = v => toStr.call(v).slice(8, -1);
  const typed = ['Int8Array', 'Uint8Array', 'Uint8ClampedArray', 'Int16Array', 'Uint16Array', 'Int32Array',
    'Uint32Array', 'Float32Array', 'Float64Array', 'BigInt64Array', 'BigUint64Array'];
  function encode(v, seen) {
    seen = seen || [];
    const t = typeof v;
    if (v === undefined || t === 'function' || t === 'symbol') return {u: 1};
    if (v === null || t === 'boolean' || t === 'string') return v;
    if (t === 'number') {
      if (Number.isNaN(v)) return {n: 'NaN'};
      if (v === Infinity) return {n: 'Infinity'};
      if (v === -Infinity) return {n: '-Infinity'};
      if (v === 0 && 1 / v < 0) return {n: '-0'};
      return v;
    }
    if (t === 'bigint') return {bi: v.toString()};
    const k = kindOf(v);
    if (k === 'Date') return {d: isNaN(v.getTime()) ? null : v.toISOString()};
    if (k === 'RegExp') return {r: {p: v.source, f: v.flags}};
    if (k === 'URL' && typeof v.href === 'string') return {url: v.href};
    if (v instanceof Error || k === 'Error') return {e: {n: String(v.name), m: String(v.message), s: String(v.stack || '')}};
    if (typed.includes(k)) return {ta: Array.from(v, x => typeof x === 'bigint' ? Number(x) : x)};
    if (typeof Node === 'function' && v instanceof Node) return {node: v.nodeType === 9 ? 'Document' : 1};
    if (typeof Window === 'function' && v instanceof Window) return {win: 1};
    const at = seen.indexOf(v);
    if (at >= 0) return {ref: at};
    const id = seen.length;
    seen.push(v);
    if (isArr(v)) {
      const out = [];
      for (let i = 0; i < v.length; i++) out.push(encode(v[i], seen));
      return {a: out, id};
    }
    const o = [];
    for (const key of Object.keys(v)) {
      let item;
      try { item = v[key]; } catch (e) { continue; }
      o.push([key, encode(item, seen)]);
    }
    return {o, id};
  }
  function decode(x, handles, refs) {
    refs = refs || {};
    if (x === null || typeof x !== 'object') return x;
    if ('u' in x) return undefined;
    if ('n' in x) return x.n === '-0' ? -0 : Number(x.n);
    if ('bi' in x) return BigInt(x.bi);
    if ('d' in x) return new Date(x.d);
    if ('r' in x) return new RegExp(x.r.p, x.r.f);
    if ('url' in x) return new URL(x.url);
    if ('e' in x) { const e = new Error(x.e.m); e.name = x.e.n; e.stack = x.e.s; return e; }
    if ('h' in x) return handles[x.h];
    if ('ref' in x) return refs[x.ref];
    if ('a' in x) {
      const out = [];
      refs[x.id] = out;
      for (const item of x.a) out.push(decode(item, handles, refs));
      return out;
    }
    if ('o' in x) {
      const out = {};
      refs[x.id] = out;
      for (const [key, item] of x.o) out[key] = decode(item, handles, refs);
      return out;
    }
    return undefined;
  }
  return {encode, decode};
}
