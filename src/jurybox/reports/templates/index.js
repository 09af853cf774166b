// The index of runs: sort by a column (click its header; again to reverse) and filter by
// text, kind and status. The state lives in the URL hash (#kind=bench&status=partial&q=tqa),
// so a link keeps it. Without the script the table shows every run, in path order.
(function () {
  "use strict";
  var table = document.getElementById("runs");
  var form = document.getElementById("filters");
  if (!table || !form) { return; }
  var body = table.tBodies[0];
  var rows = Array.prototype.slice.call(body.rows);
  var headers = Array.prototype.slice.call(table.tHead.rows[0].cells);
  var find = document.getElementById("find");
  var kind = document.getElementById("kind");
  var status = document.getElementById("status");
  var counter = document.getElementById("shown-count");
  form.hidden = false;

  function key(row, column) {
    var cell = row.cells[column];
    var value = cell.hasAttribute("data-key") ? cell.getAttribute("data-key") : cell.textContent;
    return value.trim();
  }

  function sortBy(column, descending) {
    var numeric = headers[column].getAttribute("data-type") === "number";
    var ordered = rows.slice().sort(function (a, b) {
      var x = key(a, column), y = key(b, column), order;
      if (x === "" || y === "") {  // blanks last, whichever the direction
        return (x === "") - (y === "");
      }
      order = numeric ? Number(x) - Number(y) : x.localeCompare(y);
      return descending ? -order : order;
    });
    ordered.forEach(function (row) { body.appendChild(row); });
    headers.forEach(function (th, i) {
      if (i === column) {
        th.setAttribute("aria-sort", descending ? "descending" : "ascending");
      } else {
        th.removeAttribute("aria-sort");
      }
    });
  }

  headers.forEach(function (th, column) {
    var button = document.createElement("button");
    button.type = "button";
    button.textContent = th.textContent;
    button.title = "sort by " + th.textContent;
    th.textContent = "";
    th.appendChild(button);
    button.addEventListener("click", function () {
      sortBy(column, th.getAttribute("aria-sort") === "ascending");
    });
  });

  function state() {
    var out = {q: "", kind: "", status: ""};
    window.location.hash.replace(/^#/, "").split("&").forEach(function (part) {
      var pair = part.split("=");
      if (pair.length === 2 && Object.prototype.hasOwnProperty.call(out, pair[0])) {
        try { out[pair[0]] = decodeURIComponent(pair[1]); } catch (e) { out[pair[0]] = pair[1]; }
      }
    });
    return out;
  }

  function hasOption(select, value) {
    return Array.prototype.some.call(select.options, function (o) { return o.value === value; });
  }

  function apply(wanted) {
    var shown = 0;
    var text = wanted.q.toLowerCase();
    find.value = wanted.q;
    kind.value = hasOption(kind, wanted.kind) ? wanted.kind : "";
    status.value = hasOption(status, wanted.status) ? wanted.status : "";
    rows.forEach(function (row) {
      var visible = (!wanted.kind || row.getAttribute("data-kind") === wanted.kind) &&
        (!wanted.status || row.getAttribute("data-status") === wanted.status) &&
        (!text || row.textContent.toLowerCase().indexOf(text) >= 0);
      row.hidden = !visible;
      if (visible) { shown += 1; }
    });
    counter.textContent = "showing " + shown + " of " + rows.length;
  }

  function changed() {
    var wanted = {q: find.value, kind: kind.value, status: status.value};
    var parts = [];
    Object.keys(wanted).forEach(function (name) {
      if (wanted[name]) { parts.push(name + "=" + encodeURIComponent(wanted[name])); }
    });
    if (window.history && window.history.replaceState) {
      window.history.replaceState(null, "", parts.length ? "#" + parts.join("&") :
        window.location.pathname + window.location.search);
    }
    apply(wanted);
  }

  [find, kind, status].forEach(function (el) {
    el.addEventListener("input", changed);
    el.addEventListener("change", changed);
  });
  window.addEventListener("hashchange", function () { apply(state()); });
  apply(state());
}());
