"use strict";
(function () {
  var items = Array.prototype.slice.call(document.querySelectorAll("main>article"));
  var all = Array.prototype.slice.call(document.querySelectorAll("details"));
  var bar = document.createElement("div");
  bar.id = "bar";
  var q = document.createElement("input");
  q.type = "search";
  q.placeholder = "Search messages";
  q.setAttribute("aria-label", "Search messages");
  var count = document.createElement("span");
  function button(label, open) {
    var b = document.createElement("button");
    b.type = "button";
    b.textContent = label;
    b.addEventListener("click", function () {
      all.forEach(function (d) { d.open = open; });
    });
    return b;
  }
  bar.appendChild(q);
  bar.appendChild(count);
  bar.appendChild(button("Expand all", true));
  bar.appendChild(button("Collapse all", false));
  var main = document.querySelector("main");
  main.parentNode.insertBefore(bar, main);
  var texts = items.map(function (m) { return m.textContent.toLowerCase(); });
  q.addEventListener("input", function () {
    var needle = q.value.trim().toLowerCase();
    var shown = 0;
    items.forEach(function (m, i) {
      var hit = !needle || texts[i].indexOf(needle) >= 0;
      m.classList.toggle("x", !hit);
      if (hit) shown++;
    });
    count.textContent = needle ? shown + " of " + items.length : "";
  });
  // Each message's heading gets its link; a click goes there and copies the URL.
  items.forEach(function (m) {
    var a = document.createElement("a");
    a.href = "#" + m.id;
    a.textContent = "#";
    a.title = "Copy a link to this message";
    a.addEventListener("click", function () {
      var url = location.href.split("#")[0] + "#" + m.id;
      if (navigator.clipboard) navigator.clipboard.writeText(url).catch(function () {});
    });
    m.firstElementChild.appendChild(a);
  });
  var before = null;
  window.addEventListener("beforeprint", function () {
    before = all.map(function (d) { return d.open; });
    all.forEach(function (d) { d.open = true; });
  });
  window.addEventListener("afterprint", function () {
    if (before) all.forEach(function (d, i) { d.open = before[i]; });
  });
})();
