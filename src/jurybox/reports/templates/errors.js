// Shared by every page's script (put before it): an uncaught error is shown in the page's
// #js-errors box (hidden until then), so a broken page says so instead of failing quietly.
(function () {
  "use strict";
  var errors = document.getElementById("js-errors");
  window.addEventListener("error", function (event) {
    if (errors) {
      errors.hidden = false;
      errors.textContent += "script error: " + event.message + "\n";
    }
  });
})();
