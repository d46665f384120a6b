"""WebSocket routes: page.route_web_socket() / context.route_web_socket() and WebSocketRoute.

A routed page gets a WebSocket class of wright's own (an init script in its main frame) whose sockets ask this
client, through a binding, whether a route takes them. A route's handler answers in place of the server, or
calls connect_to_server(), which opens the real socket from inside the page (the browser's own WebSocket): it
goes through the browser's network, so a run's policy proxy carries it, and the driver checks the URL against
the run's URL policy first (websocket.check) so a refused host is an error by name. Sockets of frames other than
the main frame are not routed."""

import base64
import json

from ._errors import Error
from ._helpers import _url_matches
from ._lazy import lazy

inspect = lazy("inspect")

_BINDING = "__wrightWebSocket"

# The page's WebSocket while routes exist: each socket asks the client (op "open"); an unrouted one is the
# browser's own socket behind the same object. Ops from the client arrive through window.__wrightWSRoutes.apply.
_MOCK_JS = r"""(() => {
  if (window.__wrightWSRoutes) return;
  const NAME = '%s';
  // The binding may come after this script in a new document; it is taken at the first socket.
  let bound = null;
  const call = msg => (bound = bound || window[NAME])(msg);
  const Native = window.WebSocket;
  const sockets = new Map();
  let seq = 0;
  const b64 = buf => { let s = ''; const u = new Uint8Array(buf); for (let i = 0; i < u.length; i += 0x8000) s += String.fromCharCode.apply(null, u.subarray(i, i + 0x8000)); return btoa(s); };
  const unb64 = s => { const bin = atob(s); const u = new Uint8Array(bin.length); for (let i = 0; i < bin.length; i++) u[i] = bin.charCodeAt(i); return u.buffer; };
  // Strings and buffers are encoded at once, so the page's sends reach the client in the same task (before
  // the answer of an evaluate that sent them); a Blob is read asynchronously and what follows it waits.
  const encodeNow = data => {
    if (data === undefined) return {};
    if (typeof data === 'string') return { text: data };
    if (ArrayBuffer.isView(data)) return { b64: b64(data.buffer.slice(data.byteOffset, data.byteOffset + data.byteLength)) };
    if (data instanceof ArrayBuffer) return { b64: b64(data) };
    return { text: String(data) };
  };
  const encode = async data => data instanceof Blob ? { b64: b64(await data.arrayBuffer()) } : encodeNow(data);
  class WebSocket extends EventTarget {
    constructor(url, protocols) {
      super();
      const u = new URL(url, location.href);
      if (u.protocol === 'http:') u.protocol = 'ws:';
      else if (u.protocol === 'https:') u.protocol = 'wss:';
      if (u.protocol !== 'ws:' && u.protocol !== 'wss:')
        throw new DOMException("Failed to construct 'WebSocket': The URL's scheme must be either 'http', 'https', 'ws', or 'wss'. '" + u.protocol + "' is not allowed.", 'SyntaxError');
      this.url = u.href;
      this.readyState = 0;
      this.protocol = '';
      this.extensions = '';
      this.bufferedAmount = 0;
      this.onopen = this.onmessage = this.onerror = this.onclose = null;
      this._binaryType = 'blob';
      this._protocols = protocols;
      this._id = ++seq;
      this._native = null;
      this._plain = false;
      this._chain = Promise.resolve();
      this._waiting = 0;
      this._toServer = [];
      this._toPage = [];
      sockets.set(this._id, this);
      call({ op: 'open', id: this._id, url: this.url }).then(r => this._decided(r), () => this._passThrough());
    }
    get binaryType() { return this._binaryType; }
    set binaryType(v) { this._binaryType = v; if (this._plain && this._native) this._native.binaryType = v; }
    _fire(ev) {
      const h = this['on' + ev.type];
      if (typeof h === 'function') h.call(this, ev);
      this.dispatchEvent(ev);
    }
    _post(msg, data) {
      if (!this._waiting && !(data instanceof Blob)) { call({ ...msg, ...encodeNow(data) }).catch(() => {}); return; }
      this._waiting++;
      this._chain = this._chain.then(async () => { call({ ...msg, ...(await encode(data)) }).catch(() => {}); })
        .catch(() => {}).then(() => { this._waiting--; });
    }
    _decided(r) {
      if (!r || !r.routed) return this._passThrough();
      if (r.connect) this._connect(); else this._open();
      for (const op of r.ops || []) apply(op);
    }
    _passThrough() {
      this._plain = true;
      const n = this._native = new Native(this.url, this._protocols);
      n.binaryType = this._binaryType;
      n.onopen = () => { this.readyState = 1; this.protocol = n.protocol; this.extensions = n.extensions; this._fire(new Event('open')); };
      n.onmessage = e => this._fire(new MessageEvent('message', { data: e.data, origin: e.origin, lastEventId: e.lastEventId }));
      n.onerror = () => this._fire(new Event('error'));
      n.onclose = e => { this.readyState = 3; this._fire(new CloseEvent('close', { code: e.code, reason: e.reason, wasClean: e.wasClean })); };
    }
    _connect() {
      const n = this._native = new Native(this.url, this._protocols);
      n.binaryType = 'arraybuffer';
      n.onopen = () => { for (const d of this._toServer.splice(0)) n.send(d); this._open(); };
      n.onmessage = e => this._post({ op: 'server-message', id: this._id }, e.data);
      n.onclose = e => this._post({ op: 'server-close', id: this._id, code: e.code, reason: e.reason });
      n.onerror = () => { if (this.readyState === 0) { this.readyState = 3; this._fire(new Event('error')); this._fire(new CloseEvent('close', { code: 1006, reason: '', wasClean: false })); } };
    }
    _open() {
      if (this.readyState !== 0) return;
      this.readyState = 1;
      this._fire(new Event('open'));
      for (const op of this._toPage.splice(0)) this._deliver(op);
    }
    _deliver(op) {
      if (this.readyState === 0) return this._toPage.push(op);
      if (this.readyState !== 1) return;
      let data = op.text;
      if (op.b64 !== undefined) {
        const buf = unb64(op.b64);
        data = this._binaryType === 'arraybuffer' ? buf : new Blob([buf]);
      }
      this._fire(new MessageEvent('message', { data, origin: new URL(this.url).origin }));
    }
    _closed(code, reason) {
      if (this.readyState === 3) return;
      this.readyState = 3;
      this._fire(new CloseEvent('close', { code, reason, wasClean: true }));
    }
    send(data) {
      if (this.readyState === 0) throw new DOMException("Failed to execute 'send' on 'WebSocket': Still in CONNECTING state.", 'InvalidStateError');
      if (this.readyState !== 1) return;
      if (this._plain) return this._native.send(data);
      this._post({ op: 'message', id: this._id }, data);
    }
    close(code, reason) {
      if (this.readyState >= 2) return;
      if (this._plain) { this.readyState = 2; return this._native.close(code, reason); }
      this.readyState = 2;
      this._post({ op: 'close', id: this._id, code: code === undefined ? 1005 : code, reason: reason || '' });
    }
  }
  for (const [k, v] of [['CONNECTING', 0], ['OPEN', 1], ['CLOSING', 2], ['CLOSED', 3]]) {
    Object.defineProperty(WebSocket, k, { value: v });
    Object.defineProperty(WebSocket.prototype, k, { value: v });
  }
  const apply = op => {
    const ws = sockets.get(op.id);
    if (!ws) return;
    if (op.op === 'to-page') ws._deliver(op);
    else if (op.op === 'close-page') ws._closed(op.code === undefined || op.code === null ? 1005 : op.code, op.reason || '');
    else if (op.op === 'to-server') {
      const d = op.b64 !== undefined ? unb64(op.b64) : op.text;
      if (ws._native && ws._native.readyState === 1) ws._native.send(d); else ws._toServer.push(d);
    } else if (op.op === 'close-server' && ws._native) {
      if (op.code === undefined || op.code === null) ws._native.close(); else ws._native.close(op.code, op.reason || '');
    }
  };
  window.__wrightWSRoutes = { apply };
  window.WebSocket = WebSocket;
})()""" % _BINDING

_APPLY_JS = "op => window.__wrightWSRoutes && window.__wrightWSRoutes.apply(op)"


def _payload(message):
    if isinstance(message, (bytes, bytearray, memoryview)):
        return {"b64": base64.b64encode(bytes(message)).decode("ascii")}
    if isinstance(message, str):
        return {"text": message}
    raise Error("WebSocketRoute.send: message must be str or bytes, got %s" % type(message).__name__)


def _message(msg):
    if "b64" in msg:
        return base64.b64decode(msg["b64"])
    return msg.get("text", "")


def _run(handler, *args):
    """Call a handler; a coroutine function's coroutine is run to its end (Playwright's sync API takes both)."""
    result = handler(*args)
    if inspect.iscoroutine(result):
        import asyncio  # only for a coroutine handler: most processes never need it

        loop = asyncio.new_event_loop()
        try:
            loop.run_until_complete(result)
        finally:
            loop.close()


class _Side:
    """One side of a routed socket: send, close, on_message, on_close."""

    def __init__(self, route, to, close_op):
        self._route = route
        self._to = to
        self._close_op = close_op
        self._on_message = None
        self._on_close = None

    @property
    def url(self):
        return self._route.url

    def send(self, message):
        self._route._op(dict(_payload(message), op=self._to))

    def close(self, code=None, reason=None):
        self._route._op({"op": self._close_op, "code": code, "reason": reason or ""})

    def on_message(self, handler):
        self._on_message = handler

    def on_close(self, handler):
        self._on_close = handler


class WebSocketRoute(_Side):
    """A page's WebSocket a route took. send() and close() act on the page's side; connect_to_server() opens
    the real socket and returns its side, whose messages reach the page unless it has on_message of its own."""

    def __init__(self, page, socket_id, url):
        _Side.__init__(self, self, "to-page", "close-page")
        self._page = page
        self._id = socket_id
        self._url = url
        self._server = None
        self._pending = None  # ops made while the handler runs, sent with its answer

    def __repr__(self):
        return "<WebSocketRoute url=%r>" % self._url

    @property
    def url(self):
        return self._url

    def connect_to_server(self):
        if self._server is None:
            self._page._call("websocket.check", url=self._url)
            self._server = _Side(self, "to-server", "close-server")
        return self._server

    def close(self, code=None, reason=None):
        _Side.close(self, code, reason)
        if self._server is not None:
            self._server.close(code, reason)

    def _op(self, op):
        op["id"] = self._id
        if self._pending is not None:
            self._pending.append(op)
        else:
            self._page.evaluate(_APPLY_JS, op)

    def _page_message(self, message):
        if self._on_message is not None:
            _run(self._on_message, message)
        elif self._server is not None:
            self._server.send(message)

    def _page_close(self, code, reason):
        if self._on_close is not None:
            _run(self._on_close, code, reason)
            return
        if self._server is not None:
            self._server.close(code, reason)
        _Side.close(self, code, reason)

    def _server_message(self, message):
        if self._server._on_message is not None:
            _run(self._server._on_message, message)
        else:
            self.send(message)

    def _server_close(self, code, reason):
        if self._server._on_close is not None:
            _run(self._server._on_close, code, reason)
        else:
            _Side.close(self, code, reason)


class _WebSocketRoutes:
    """The routes of a page or a context and the install of the page's WebSocket."""

    def __init__(self, owner):
        self._owner = owner  # a Page or a BrowserContext
        self._routes = []  # (pattern, handler)
        self._installed = False

    def add(self, url, handler):
        self._routes.insert(0, (url, handler))
        if self._installed:
            return
        self._installed = True
        self._owner.expose_binding(_BINDING, _on_binding)
        self._owner.add_init_script(_MOCK_JS)
        pages = [self._owner] if hasattr(self._owner, "main_frame") else self._owner.pages
        for page in pages:
            try:
                page.evaluate(_MOCK_JS)
            except Error:
                pass  # a page between documents gets it from the init script

    def handler_for(self, url, base):
        for pattern, handler in self._routes:
            if _url_matches(pattern, url, base) or _url_matches(_with_slash(pattern), url, base):
                return handler
        return None


def _with_slash(pattern):
    """ws://host:port matches the socket's ws://host:port/ (the URL a WebSocket normalises to)."""
    if isinstance(pattern, str) and pattern.count("/") == 2 and "://" in pattern:
        return pattern + "/"
    return pattern


def _ws_base(base):
    if base and base.startswith("http"):
        return "ws" + base[4:]
    return base


def _route_handler(page, url):
    context = page.context
    base = _ws_base(context._options.get("base_url") if context is not None else None)
    for routes in (page._ws_routes, context._ws_routes if context is not None else None):
        if routes is not None:
            handler = routes.handler_for(url, base)
            if handler is not None:
                return handler
    return None


def _on_binding(source, msg):
    """A routed socket's news from the page (open, message, close, server-message, server-close). A handler's
    own calls pump the driver's events, so news that comes meanwhile waits its turn: each socket's messages are
    handled one after another, in the order the page sent them."""
    page = source["page"]
    if msg.get("op") == "open":
        return _open(page, msg)
    page._ws_backlog.append(msg)
    if len(page._ws_backlog) > 1:
        return None  # the call below this one on the stack handles it next
    while page._ws_backlog:
        try:
            _deliver(page, page._ws_backlog[0])
        finally:
            page._ws_backlog.popleft()
    return None


def _open(page, msg):
    handler = _route_handler(page, msg.get("url") or "")
    if handler is None:
        return {"routed": False}
    route = WebSocketRoute(page, msg.get("id"), msg.get("url"))
    page._ws_sockets[route._id] = route
    route._pending = []
    try:
        _run(handler, route)
    finally:
        ops, route._pending = route._pending, None
    return {"routed": True, "connect": route._server is not None, "ops": ops}


def _deliver(page, msg):
    route = page._ws_sockets.get(msg.get("id"))
    if route is None:
        return
    op = msg.get("op")
    if op == "message":
        route._page_message(_message(msg))
    elif op == "close":
        route._page_close(msg.get("code"), msg.get("reason") or "")
    elif op == "server-message":
        route._server_message(_message(msg))
    elif op == "server-close":
        route._server_close(msg.get("code"), msg.get("reason") or "")


def _route_web_socket(owner, url, handler):
    if owner._ws_routes is None:
        owner._ws_routes = _WebSocketRoutes(owner)
    owner._ws_routes.add(url, handler)
