"use strict";
// Sorts the archive's table by the column whose heading is clicked (again: the other way).
(function () {
  var table = document.getElementById("index");
  var heads = Array.prototype.slice.call(table.tHead.rows[0].cells);
  var body = table.tBodies[0];
  heads.forEach(function (th, col) {
    var b = document.createElement("button");
    b.type = "button";
    b.textContent = th.textContent;
    th.textContent = "";
    th.appendChild(b);
    b.addEventListener("click", function () {
      var up = th.getAttribute("aria-sort") !== "ascending";
      heads.forEach(function (h) { h.removeAttribute("aria-sort"); });
      th.setAttribute("aria-sort", up ? "ascending" : "descending");
      var key = function (r) {
        var c = r.cells[col], v = c.getAttribute("data-v");
        return v === null ? c.textContent.toLowerCase() : parseFloat(v);
      };
      Array.prototype.slice.call(body.rows)
        .sort(function (x, y) { var a = key(x), z = key(y); return (a < z ? -1 : a > z ? 1 : 0) * (up ? 1 : -1); })
        .forEach(function (r) { body.appendChild(r); });
    });
  });
})();
