// Keyboard navigation between steps, sortable and filterable bench tables,
// and, on served pages only, a reload when the run on disk changes. Nothing
// here asks the network for anything on a page opened from a file.
(function () {
  "use strict";
  var steps = Array.prototype.slice.call(document.querySelectorAll("section.step"));
  var navLinks = {};
  document.querySelectorAll("a.navstep[data-step]").forEach(function (a) { navLinks[a.dataset.step] = a; });
  var current = -1;

  function select(i, scroll) {
    if (!steps.length) return;
    i = Math.max(0, Math.min(steps.length - 1, i));
    if (current >= 0) {
      steps[current].classList.remove("current");
      var old = navLinks[steps[current].dataset.step];
      if (old) old.classList.remove("current");
    }
    current = i;
    var s = steps[i];
    s.classList.add("current");
    var link = navLinks[s.dataset.step];
    if (link) { link.classList.add("current"); link.scrollIntoView({block: "nearest"}); }
    if (scroll !== false) s.scrollIntoView({block: "start"});
    history.replaceState(null, "", "#" + s.id);
    document.body.dataset.current = s.dataset.step;
  }

  function indexOfHash() {
    for (var i = 0; i < steps.length; i++) if ("#" + steps[i].id === location.hash) return i;
    return -1;
  }

  document.addEventListener("keydown", function (e) {
    if (e.ctrlKey || e.metaKey || e.altKey) return;
    var t = e.target && e.target.tagName;
    if (t === "INPUT" || t === "TEXTAREA" || t === "SELECT") return;
    switch (e.key) {
      case "j": case "n": select(current + 1); break;
      case "k": case "p": select(current < 0 ? 0 : current - 1); break;
      case "g": case "Home": select(0); break;
      case "G": case "End": select(steps.length - 1); break;
      case "o":
        if (current >= 0) steps[current].querySelectorAll("details").forEach(function (d) { d.open = !d.open; });
        break;
      default: return;
    }
    e.preventDefault();
  });
  steps.forEach(function (s, i) { s.addEventListener("click", function () { select(i, false); }); });
  window.addEventListener("hashchange", function () { var i = indexOfHash(); if (i >= 0) select(i); });
  var start = indexOfHash();
  if (start >= 0) select(start);

  // Bench table: click a header to sort, buttons and a box to filter.
  var table = document.querySelector("table.results");
  if (table) {
    var body = table.tBodies[0];
    var rows = Array.prototype.slice.call(body.rows);
    var state = {status: "all", text: ""};
    function apply() {
      var shown = 0;
      rows.forEach(function (r) {
        var ok = (state.status === "all" || r.dataset.status === state.status || (state.status === "failed" && r.dataset.failed === "1")) &&
          (!state.text || r.textContent.toLowerCase().indexOf(state.text) >= 0);
        r.hidden = !ok;
        if (ok) shown++;
      });
      var c = document.getElementById("shown");
      if (c) c.textContent = shown;
    }
    document.querySelectorAll(".filters button[data-status]").forEach(function (b) {
      b.addEventListener("click", function () {
        document.querySelectorAll(".filters button").forEach(function (x) { x.classList.remove("on"); });
        b.classList.add("on");
        state.status = b.dataset.status;
        apply();
      });
    });
    var box = document.getElementById("filter");
    if (box) box.addEventListener("input", function () { state.text = box.value.toLowerCase(); apply(); });
    table.querySelectorAll("th").forEach(function (th, col) {
      th.addEventListener("click", function () {
        var desc = th.classList.contains("sorted-asc");
        table.querySelectorAll("th").forEach(function (x) { x.classList.remove("sorted-asc", "sorted-desc"); });
        th.classList.add(desc ? "sorted-desc" : "sorted-asc");
        var num = th.dataset.type === "num";
        rows.sort(function (a, b) {
          var x = a.cells[col].dataset.v || a.cells[col].textContent, y = b.cells[col].dataset.v || b.cells[col].textContent;
          var c = num ? (parseFloat(x) || 0) - (parseFloat(y) || 0) : x.localeCompare(y);
          return desc ? -c : c;
        });
        rows.forEach(function (r) { body.appendChild(r); });
      });
    });
  }

  // Served pages: reload when the run or bench changes on disk.
  var poll = document.body.dataset.poll;
  if (poll) {
    var seen = document.body.dataset.version || null;
    setInterval(function () {
      fetch(poll, {cache: "no-store"}).then(function (r) { return r.text(); }).then(function (v) {
        if (seen !== null && v !== seen) {
          sessionStorage.setItem("wright-review-scroll", String(window.scrollY));
          location.reload();
        }
        seen = v;
      }).catch(function () {});
    }, 2000);
    var y = sessionStorage.getItem("wright-review-scroll");
    if (y !== null) { sessionStorage.removeItem("wright-review-scroll"); window.scrollTo(0, parseFloat(y)); }
  }
})();
