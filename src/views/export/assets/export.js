"use strict";
// The page is whole without this script: it only searches, toggles and copies links.
(function () {
  var d = document;
  var list = function (sel) { return Array.prototype.slice.call(d.querySelectorAll(sel)); };
  var items = list("main>article");
  var bar = d.createElement("div");
  bar.id = "bar";
  var q = d.createElement("input");
  q.type = "search";
  q.placeholder = "Search messages";
  q.setAttribute("aria-label", "Search messages");
  var count = d.createElement("span");
  count.setAttribute("aria-live", "polite");
  bar.appendChild(q);
  bar.appendChild(count);
  function button(label, title, act) {
    var b = d.createElement("button");
    b.type = "button";
    b.textContent = label;
    b.title = title;
    b.addEventListener("click", function () { act(b); });
    bar.appendChild(b);
    return b;
  }
  function setOpen(sel, open) { list(sel).forEach(function (x) { x.open = open; }); }
  // A toggle opens all when any is closed, else closes all; its button says which it did.
  function toggle(sel, b) {
    var open = list(sel).some(function (x) { return !x.open; });
    setOpen(sel, open);
    b.setAttribute("aria-pressed", String(open));
  }
  var THINKING = "main details.k";
  var OUTPUT = "main .tc>details,main article.t>details,main article.b>details";
  var keys = {
    t: button("Thinking (T)", "Open or close every thinking block", function (b) { toggle(THINKING, b); }),
    o: button("Tool output (O)", "Open or close every tool output", function (b) { toggle(OUTPUT, b); }),
    h: button("Custom messages (H)", "Hide or show extensions' messages", function (b) {
      b.setAttribute("aria-pressed", String(!d.body.classList.toggle("hc")));
    })
  };
  keys.h.setAttribute("aria-pressed", "true");
  // pi's /tree filters: everything, no tool calls or output, user messages, labeled entries.
  var filter = d.createElement("select");
  filter.setAttribute("aria-label", "Show");
  [["", "All messages"], ["f-n", "No tools"], ["f-u", "User only"], ["f-l", "Labeled only"]].forEach(function (o) {
    var opt = d.createElement("option");
    opt.value = o[0];
    opt.textContent = o[1];
    filter.appendChild(opt);
  });
  filter.addEventListener("change", function () {
    d.body.classList.remove("f-n", "f-u", "f-l");
    if (filter.value) d.body.classList.add(filter.value);
  });
  bar.appendChild(filter);
  button("Expand all", "Open every block", function () { setOpen("main details", true); });
  button("Collapse all", "Close every block", function () { setOpen("main details", false); });
  var main = d.querySelector("main");
  main.parentNode.insertBefore(bar, main);
  d.addEventListener("keydown", function (e) {
    var t = e.target.tagName;
    if (e.ctrlKey || e.metaKey || e.altKey || t === "INPUT" || t === "TEXTAREA" || t === "SELECT") return;
    var b = keys[e.key.toLowerCase()];
    if (b) {
      e.preventDefault();
      b.click();
    }
  });
  // Read once, at the first search: a page of 100,000 messages opens without it.
  var texts = null;
  q.addEventListener("input", function () {
    if (!texts) texts = items.map(function (m) { return m.textContent.toLowerCase(); });
    var needle = q.value.trim().toLowerCase();
    var shown = 0;
    items.forEach(function (m, i) {
      var hit = !needle || texts[i].indexOf(needle) >= 0;
      m.classList.toggle("x", !hit);
      if (hit) shown++;
    });
    count.textContent = needle ? shown + " of " + items.length : "";
  });
  // Each message's heading gets its link, a thousand at a time (the first at once); a click
  // goes there and copies the URL.
  main.addEventListener("click", function (e) {
    var a = e.target.closest && e.target.closest("article>h3>a.l");
    if (a && navigator.clipboard) {
      navigator.clipboard.writeText(location.href.split("#")[0] + a.getAttribute("href")).catch(function () {});
    }
  });
  (function links(from) {
    items.slice(from, from + 1000).forEach(function (m) {
      var a = d.createElement("a");
      a.className = "l";
      a.href = "#" + m.id;
      a.textContent = "#";
      a.title = "Copy a link to this message";
      a.setAttribute("aria-label", "Link to this message");
      m.firstElementChild.appendChild(a);
    });
    if (from + 1000 < items.length) setTimeout(function () { links(from + 1000); }, 0);
  })(0);
  // `#ENTRY-ID` (an entry's id as pi and pisess print it) goes to its message, whose anchor is
  // `m-` and the id with each byte outside [A-Za-z0-9_-] as `.xx`.
  function follow() {
    var id;
    try { id = decodeURIComponent(location.hash.slice(1)); } catch (e) { return; }
    if (!id) return;
    var el = d.getElementById(id);
    if (!el) {
      var a = "m-";
      new TextEncoder().encode(id).forEach(function (b) {
        var c = String.fromCharCode(b);
        a += /[A-Za-z0-9_-]/.test(c) ? c : "." + (b < 16 ? "0" : "") + b.toString(16);
      });
      el = d.getElementById(a);
    }
    if (!el) return;
    // Messages off screen are laid out when they come near it (content-visibility), which
    // moves the target: it is scrolled to again until it stays.
    var n = 0;
    (function again() {
      el.scrollIntoView();
      if (++n < 8) requestAnimationFrame(again);
    })();
  }
  window.addEventListener("hashchange", follow);
  follow();
  var before = null;
  window.addEventListener("beforeprint", function () {
    var all = list("details");
    before = all.map(function (x) { return x.open; });
    all.forEach(function (x) { x.open = true; });
  });
  window.addEventListener("afterprint", function () {
    if (before) list("details").forEach(function (x, i) { x.open = before[i]; });
  });
})();
