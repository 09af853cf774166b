// The item browser's filters: show the items that carry any checked flag (all when none is
// checked). The state lives in the URL hash, #filter=flipped,failed, so a link keeps it.
(function () {
  "use strict";
  var errors = document.getElementById("js-errors");
  window.addEventListener("error", function (event) {
    if (errors) {
      errors.hidden = false;
      errors.textContent += "script error: " + event.message + "\n";
    }
  });
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
