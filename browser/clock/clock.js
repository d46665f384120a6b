// wright's fake clock for one document (Playwright's page.clock / context.clock).
//
// Loading this file defines globalThis.__wrightClock and changes nothing
// else: the globals are replaced only once the client applies an operation
// (apply) or a new document replays the context's operations (replay). It
// is loaded by every document of a context (an init script) and into the
// documents that were already open when the clock was first used.
//
// The model. "ticks" is the clock's monotonic time (performance.now and
// the timers); Date is origin + ticks unless a fixed time is set. While the
// clock runs, ticks follow the real wall clock from an anchor (ticksBase at
// realBase); paused, they move only when told to. Every operation carries
// the real time "at" which the client issued it and takes effect as of that
// moment, so a document that replays the same list later (after a
// navigation, or a popup) computes the very state the open documents hold.
(() => {
  if (globalThis.__wrightClock) {
    return;
  }
  const g = globalThis;
  const real = {
    Date: g.Date,
    setTimeout: g.setTimeout.bind(g),
    clearTimeout: g.clearTimeout.bind(g),
    MessageChannel: g.MessageChannel,
    perfNow: g.performance ? g.performance.now.bind(g.performance) : null,
  };
  const wallNow = () => real.Date.now();
  const maxDate = 8.64e15;

  const s = {
    active: false, // Date replaced
    timers: false, // timers, animation frames and performance replaced
    installed: false, // the clock drives the fake timers (else they follow the real time)
    paused: false,
    ticksBase: 0,
    realBase: 0,
    origin: 0, // Date at ticks 0
    perfOrigin: 0, // performance.timeOrigin once the timers are fake
    fixed: null, // set_fixed_time's Date, or null
    cursor: null, // the ticks while an advance fires timers
    nextId: 1 << 20, // far from the ids the real timers hand out
    pending: new Map(),
    realTimer: null,
    queue: Promise.resolve(),
  };

  function ticks(at) {
    if (s.cursor !== null) {
      return s.cursor;
    }
    if (s.paused) {
      return s.ticksBase;
    }
    return s.ticksBase + Math.max(0, (at === undefined ? wallNow() : at) - s.realBase);
  }

  function dateNow() {
    return s.fixed !== null ? s.fixed : s.origin + ticks();
  }

  function toTime(value) {
    const ms = typeof value === 'string' ? new real.Date(value).getTime() : Number(value);
    if (!Number.isFinite(ms) || Math.abs(ms) > maxDate) {
      throw new Error('Invalid date: ' + value);
    }
    return ms;
  }

  // --- the fake globals

  function ClockDate(...args) {
    if (!new.target) {
      return new real.Date(dateNow()).toString();
    }
    const d = args.length === 0 ? new real.Date(dateNow()) : new real.Date(...args);
    if (new.target !== ClockDate) {
      Object.setPrototypeOf(d, new.target.prototype);
    }
    return d;
  }

  function defineDate() {
    ClockDate.prototype = real.Date.prototype;
    ClockDate.now = () => dateNow();
    ClockDate.parse = real.Date.parse;
    ClockDate.UTC = real.Date.UTC;
    ClockDate.toString = () => real.Date.toString();
    Object.defineProperty(ClockDate, 'name', { value: 'Date' });
    Object.defineProperty(ClockDate, 'length', { value: 7 });
    Object.defineProperty(real.Date.prototype, 'constructor', {
      value: ClockDate, writable: true, configurable: true,
    });
    g.Date = ClockDate;
  }

  function addTimer(kind, fn, delay, args) {
    if (typeof fn !== 'function' && kind !== 'timeout' && kind !== 'interval') {
      throw new TypeError("Failed to execute: parameter 1 is not of type 'Function'.");
    }
    let ms = Math.max(0, Math.floor(Number(delay) || 0));
    if (kind === 'interval' || s.cursor !== null) {
      // A zero interval would never let an advance end, and a zero delay set
      // by a callback the clock fires runs in a later task in a browser: the
      // next millisecond here, so the advance that fired it does not.
      ms = Math.max(1, ms);
    }
    const now = ticks();
    let due = now + ms;
    if (kind === 'frame') {
      due = now + 16 - (now % 16); // the next 60 Hz frame
    }
    const id = s.nextId++;
    s.pending.set(id, { id, kind, fn, args, due, every: kind === 'interval' ? ms : null });
    scheduleReal();
    return id;
  }

  function clearTimer(id, realClear) {
    if (s.pending.delete(Number(id))) {
      scheduleReal();
    } else if (realClear) {
      realClear(id); // a timer set before the clock was installed
    }
  }

  function defineTimers() {
    const rc = { timeout: real.clearTimeout, interval: g.clearInterval.bind(g) };
    const caf = g.cancelAnimationFrame ? g.cancelAnimationFrame.bind(g) : null;
    const cic = g.cancelIdleCallback ? g.cancelIdleCallback.bind(g) : null;
    g.setTimeout = (fn, delay, ...args) => addTimer('timeout', fn, delay, args);
    g.setInterval = (fn, delay, ...args) => addTimer('interval', fn, delay, args);
    g.clearTimeout = (id) => clearTimer(id, rc.timeout);
    g.clearInterval = (id) => clearTimer(id, rc.interval);
    if ('requestAnimationFrame' in g) {
      g.requestAnimationFrame = (fn) => addTimer('frame', fn, 0, []);
      g.cancelAnimationFrame = (id) => clearTimer(id, caf);
    }
    if ('requestIdleCallback' in g) {
      g.requestIdleCallback = (fn, opts) => {
        const timeout = opts && opts.timeout > 0 ? Math.min(opts.timeout, 50) : 50;
        return addTimer('idle', fn, timeout, []);
      };
      g.cancelIdleCallback = (id) => clearTimer(id, cic);
    }
    if (g.AbortSignal && typeof g.AbortSignal.timeout === 'function') {
      // AbortSignal.timeout waits on the browser's own timer: make it one of ours.
      g.AbortSignal.timeout = (ms) => {
        const controller = new g.AbortController();
        addTimer('timeout', () => controller.abort(new g.DOMException('signal timed out', 'TimeoutError')), ms, []);
        return controller.signal;
      };
    }
    if (g.performance) {
      g.performance.now = () => ticks();
      Object.defineProperty(g.performance, 'timeOrigin', { get: () => s.perfOrigin, configurable: true });
    }
  }

  // --- firing timers

  function call(t) {
    if (t.kind === 'frame') {
      return t.fn(ticks());
    }
    if (t.kind === 'idle') {
      return t.fn({ didTimeout: false, timeRemaining: () => 0 });
    }
    if (typeof t.fn !== 'function') {
      return (0, eval)(String(t.fn)); // setTimeout('code', ms), as browsers allow
    }
    return t.fn.apply(g, t.args);
  }

  function fire(t) {
    if (t.every !== null) {
      t.due = ticks() + t.every;
    } else {
      s.pending.delete(t.id);
    }
    call(t);
  }

  // eligible is the timer an advance to target fires next: the earliest
  // due by then, the first set among equals.
  function eligible(target) {
    let best = null;
    for (const t of s.pending.values()) {
      if (t.due > target) {
        continue;
      }
      if (best === null || t.due < best.due || (t.due === best.due && t.id < best.id)) {
        best = t;
      }
    }
    return best;
  }

  // A real task between two callbacks lets the promises they settle run
  // first, so an awaited timer's continuation sees its own moment.
  function settle() {
    return new Promise((resolve) => {
      if (typeof real.MessageChannel !== 'function') {
        real.setTimeout(resolve, 0);
        return;
      }
      const ch = new real.MessageChannel();
      ch.port1.onmessage = () => {
        ch.port1.close();
        resolve();
      };
      ch.port2.postMessage(0);
    });
  }

  // advance moves ticks to target. "run" fires every timer in due order at
  // its own time; "jump" moves first and fires each due timer once, late.
  // The first exception a callback throws is rethrown once it is done.
  function advance(target, mode, at) {
    const start = ticks(at);
    s.cursor = mode === 'jump' ? target : start;
    let failure = null;
    const finish = () => {
      s.cursor = null;
      s.ticksBase = target;
      s.realBase = at;
      scheduleReal();
      if (failure) {
        throw failure.error;
      }
    };
    const next = () => {
      const t = eligible(target);
      if (t === null) {
        return finish();
      }
      s.cursor = Math.max(s.cursor, t.due);
      try {
        fire(t);
      } catch (error) {
        failure = failure || { error };
      }
      return settle().then(next);
    };
    return next();
  }

  // scheduleReal keeps one real timer for the earliest fake one while the
  // clock runs; when it fires, the clock runs up to the real time.
  function scheduleReal() {
    if (s.realTimer !== null) {
      real.clearTimeout(s.realTimer);
      s.realTimer = null;
    }
    if (!s.timers || s.paused || s.cursor !== null) {
      return;
    }
    let first = null;
    for (const t of s.pending.values()) {
      if (first === null || t.due < first) {
        first = t.due;
      }
    }
    if (first === null) {
      return;
    }
    const wait = Math.min(Math.max(0, first - ticks()), 0x7fffffff);
    s.realTimer = real.setTimeout(() => {
      s.realTimer = null;
      enqueue(() => {
        const at = wallNow();
        return advance(ticks(at), 'run', at);
      }).catch((error) => {
        real.setTimeout(() => { throw error; }); // the page's own uncaught error
      });
    }, wait);
  }

  function enqueue(fn) {
    const p = s.queue.then(fn);
    s.queue = p.catch(() => {});
    return p;
  }

  // --- operations

  function activate(at) {
    if (s.active) {
      return;
    }
    s.active = true;
    s.ticksBase = 0;
    s.realBase = at;
    s.origin = at; // Date reads the real time until told otherwise
    defineDate();
  }

  function reset(at) {
    at = Math.min(Number(at) || wallNow(), wallNow());
    Object.assign(s, { installed: false, paused: false, ticksBase: 0, realBase: at, origin: at, fixed: null });
  }

  function installTimers(at, time) {
    s.origin = time;
    s.perfOrigin = time;
    s.ticksBase = 0;
    s.realBase = at;
    s.paused = false;
    s.installed = true;
    if (!s.timers) {
      s.timers = true;
      defineTimers();
    }
  }

  // ensureTimers installs the fake timers at the current time for the
  // operations that need them (run_for before install, as Playwright allows).
  function ensureTimers(at) {
    if (!s.installed) {
      installTimers(at, s.origin + ticks(at));
    }
  }

  const ops = {
    install(arg, at) {
      const time = toTime(arg.time);
      if (s.installed) {
        s.origin = time - ticks(at);
      } else {
        installTimers(at, time);
      }
      s.fixed = null;
    },
    pause_at(arg, at) {
      const time = toTime(arg.time);
      const wall = s.origin + ticks(at); // ensureTimers keeps it
      if (time < wall) {
        throw new Error('Cannot pause at ' + new real.Date(time).toISOString() + ': the clock is already at ' +
          new real.Date(wall).toISOString());
      }
      ensureTimers(at);
      s.ticksBase = ticks(at);
      s.paused = true;
      return advance(s.ticksBase + (time - wall), 'jump', at);
    },
    resume(arg, at) {
      ensureTimers(at);
      if (s.paused) {
        s.realBase = at;
        s.paused = false;
      }
      scheduleReal();
    },
    run_for(arg, at) {
      ensureTimers(at);
      return advance(ticks(at) + arg.ms, 'run', at);
    },
    fast_forward(arg, at) {
      ensureTimers(at);
      return advance(ticks(at) + arg.ms, 'jump', at);
    },
    set_fixed_time(arg) {
      s.fixed = toTime(arg.time);
    },
    set_system_time(arg, at) {
      const time = toTime(arg.time);
      s.fixed = null;
      s.origin = time - ticks(at);
    },
  };

  // run applies one operation; its errors before any change are returned
  // as {invalid} (nothing changed, the client does not record it).
  function run(op, arg, at) {
    if (!Object.prototype.hasOwnProperty.call(ops, op)) {
      return { invalid: 'unknown clock operation ' + op };
    }
    at = Math.min(Number(at) || wallNow(), wallNow());
    activate(at);
    if ((op === 'run_for' || op === 'fast_forward') && !(arg.ms >= 0)) {
      return { invalid: 'ticks must be a number of milliseconds, 0 or more' };
    }
    let pending;
    try {
      pending = ops[op](arg, at);
    } catch (error) {
      return { invalid: String(error && error.message || error) };
    }
    return pending ? pending.then(() => ({})) : {};
  }

  const api = {
    apply(op, arg, at) {
      return enqueue(() => run(op, arg || {}, at));
    },
    // adopt is replay for a document that may have replayed already.
    adopt(log) {
      if (!s.active) {
        api.replay(log);
      }
    },
    // replay brings a new document to the state of the operations so far:
    // it has no timers yet, so each advance is only a move of the ticks.
    replay(log) {
      if (s.active && log.length > 0) {
        reset(log[0][2]); // an older copy of the list ran first: start again from nothing
      }
      for (const [op, arg, at] of log) {
        run(op, arg || {}, at);
      }
    },
  };
  Object.defineProperty(g, '__wrightClock', { value: api, configurable: false, enumerable: false });
})();
