/* Small page enhancements, kept out of the templates so that the Content-Security-Policy
 * allows scripts from this site's files only (no inline script, no on* attributes).
 * Every page works without them.
 *
 * - The replay: the arrow keys step back and forth (the Previous / Next links do the same), and the next step
 *   keeps the focus on the control and says the move.
 * - An invite link field selects its whole text when it gets focus, ready to copy
 *   (delegated, so a table swapped in by live.js keeps it).
 */
(function () {
  "use strict";

  document.addEventListener("keydown", function (event) {
    if (event.altKey || event.ctrlKey || event.metaKey || /input|select|textarea/i.test(event.target.tagName)) return;
    var id = event.key === "ArrowLeft" ? "replay-prev" : event.key === "ArrowRight" ? "replay-next" : "";
    var link = id && document.getElementById(id);
    if (link) { remember(link.id); window.location.href = link.href; }
  });

  /* A step of the replay is a page of its own: the next one puts the focus back on the control that led to it
   * (it was at the top of the page, a dozen Tabs away) and says what the move was (a live region is not read
   * out on a page that loads: an accessibility tester). */
  var REPLAY_KEY = "threethirteen:replay-focus";
  function remember(id) {
    try { sessionStorage.setItem(REPLAY_KEY, id); } catch (e) { /* storage off: the focus starts at the top */ }
  }
  document.addEventListener("click", function (event) {
    var link = event.target.closest && event.target.closest(".replay-steps a[id]");
    if (link) remember(link.id);
  });
  function backToTheControl() {
    var id = null;
    try { id = sessionStorage.getItem(REPLAY_KEY); sessionStorage.removeItem(REPLAY_KEY); } catch (e) { return; }
    var said = document.querySelector(".replay-event");
    if (!id || !said) return;
    // At the last step "Next" is gone (and "Previous" at the first): the other one.
    var control = document.getElementById(id) || document.getElementById(id === "replay-next" ? "replay-prev" : "replay-next");
    if (control) control.focus();
    var words = said.innerHTML;
    said.innerHTML = "";
    setTimeout(function () { said.innerHTML = words; }, 100);  // a change of the live region: read out
  }
  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", backToTheControl);
  else backToTheControl();

  document.addEventListener("focusin", function (event) {
    var field = event.target;
    if (field && field.matches && field.matches("input[data-select-on-focus]")) field.select();
  });
})();
