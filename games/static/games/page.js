/* Small page enhancements, kept out of the templates so that the Content-Security-Policy
 * allows scripts from this site's files only (no inline script, no on* attributes).
 * Every page works without them.
 *
 * - The replay: the arrow keys step back and forth (the Previous / Next links do the same).
 * - An invite link field selects its whole text when it gets focus, ready to copy
 *   (delegated, so a table swapped in by live.js keeps it).
 */
(function () {
  "use strict";

  document.addEventListener("keydown", function (event) {
    if (event.altKey || event.ctrlKey || event.metaKey || /input|select|textarea/i.test(event.target.tagName)) return;
    var id = event.key === "ArrowLeft" ? "replay-prev" : event.key === "ArrowRight" ? "replay-next" : "";
    var link = id && document.getElementById(id);
    if (link) window.location.href = link.href;
  });

  document.addEventListener("focusin", function (event) {
    var field = event.target;
    if (field && field.matches && field.matches("input[data-select-on-focus]")) field.select();
  });
})();
