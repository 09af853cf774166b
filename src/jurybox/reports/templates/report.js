// The item browser's filters: show the items that carry any checked flag (all when none is
// checked). The state lives in the URL hash, #filter=flipped,failed, so a link keeps it.
// And the prompts: each distinct text is stored once in the page (#page-texts, a JSON list;
// null where an element marked data-t shows the text); a prompt message lists its texts'
// indices (data-seg) and is put together, as text, when its call is first opened.
(function () {
  "use strict";
  var table = null;
  function texts() {
    if (table === null) {
      var store = document.getElementById("page-texts");
      table = JSON.parse((store && store.getAttribute("data-texts")) || "[]");
      Array.prototype.forEach.call(document.querySelectorAll("[data-t]"), function (el) {
        var i = Number(el.getAttribute("data-t"));
        if (table[i] === null) { table[i] = el.textContent; }
      });
    }
    return table;
  }

  function fill(call) {
    Array.prototype.forEach.call(call.querySelectorAll("pre[data-seg]"), function (pre) {
      var all = texts();
      pre.textContent = pre.getAttribute("data-seg").split(" ").filter(function (i) {
        return i;
      }).map(function (i) { return all[Number(i)]; }).join("");
      pre.removeAttribute("data-seg");
    });
  }

  // toggle does not bubble: listen while it is captured on its way down
  document.addEventListener("toggle", function (event) {
    var target = event.target;
    if (target.open && target.classList && target.classList.contains("call")) { fill(target); }
  }, true);
  Array.prototype.forEach.call(document.querySelectorAll("details.call[open]"), fill);

  var form = document.getElementById("filters");
  if (!form) { return; }
  var boxes = Array.prototype.slice.call(form.querySelectorAll("input[name=filter]"));
  var items = Array.prototype.slice.call(document.querySelectorAll("article.item"));
  var counter = document.getElementById("shown-count");

  function wanted() {
    var match = /(?:^|[#&])filter=([^&]*)/.exec(window.location.hash);
    if (!match) { return []; }
    var text = match[1];
    try { text = decodeURIComponent(text); } catch (e) { /* a hand-typed "%": use as is */ }
    return text.split(",").filter(function (f) { return f; });
  }

  function apply(flags) {
    var shown = 0;
    boxes.forEach(function (box) { box.checked = flags.indexOf(box.value) >= 0; });
    items.forEach(function (item) {
      var own = (item.getAttribute("data-flags") || "").split(" ");
      var visible = flags.length === 0 || flags.some(function (f) { return own.indexOf(f) >= 0; });
      item.hidden = !visible;
      if (visible) { shown += 1; }
    });
    if (counter) { counter.textContent = "showing " + shown + " of " + items.length; }
  }

  boxes.forEach(function (box) {
    box.addEventListener("change", function () {
      var flags = boxes.filter(function (b) { return b.checked; }).map(function (b) { return b.value; });
      var hash = flags.length ? "#filter=" + flags.join(",") : "#items";
      if (window.history && window.history.replaceState) {
        window.history.replaceState(null, "", hash);
      } else {
        window.location.hash = hash;
      }
      apply(flags);
    });
  });
  window.addEventListener("hashchange", function () { apply(wanted()); });
  apply(wanted());
}());
