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
    if (event.button !== 0 || event.ctrlKey || event.metaKey || event.shiftKey || event.altKey) return;  // a new tab
    var link = event.target.closest && event.target.closest(".replay-steps a[id]");
    if (link) remember(link.id);
  });
  function backToTheControl() {
    var id = null;
    try { id = sessionStorage.getItem(REPLAY_KEY); sessionStorage.removeItem(REPLAY_KEY); } catch (e) { return; }
    var move = document.querySelector(".replay-event"), region = document.querySelector("[data-replay-said]");
    if (!id || !move || !region) return;
    // At the last step "Next" is gone (and "Previous" at the first): the other one.
    var control = document.getElementById(id) || document.getElementById(id === "replay-next" ? "replay-prev" : "replay-next");
    if (control) control.focus();
    // Each card by its name (data-said), not "J♦"; said once the page is there, as a change of the live region.
    var words = Array.prototype.map.call(move.querySelectorAll("p"), function (p) {
      return (p.getAttribute("data-said") || p.textContent).replace(/\s+/g, " ").trim();
    }).join(" ");
    setTimeout(function () { region.textContent = words; }, 300);
  }
  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", backToTheControl);
  else backToTheControl();

  document.addEventListener("focusin", function (event) {
    var field = event.target;
    if (field && field.matches && field.matches("input[data-select-on-focus]")) field.select();
  });
})();
