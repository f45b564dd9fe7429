/* Turn alerts (progressive enhancement: the server already renders the title and the icon).
 *
 * - The tab title starts with "(N) " while N games wait on the signed-in person, and the
 *   site icon gets a red dot; both follow the header's count, which live.js re-dispatches
 *   from the user socket as "threethirteen:user" {type: "turns", count} events.
 * - On a table, the title starts with "Your turn — " while it is this person's turn; it
 *   follows the table live.js swaps in ("threethirteen:table" events).
 * - When a turn comes (on a table: the table turns to this person; elsewhere: the count
 *   grows) a short chime plays if the person turned sound on (kept on the profile), and a
 *   browser notification shows if the tab is hidden and this browser was allowed to (the
 *   permission is asked only when the person presses the "Notifications" button).
 * Words come from the templates (the turn-alerts <meta>, data-label-* attributes).
 */
(function () {
  "use strict";

  var NOTIFY_KEY = "threethirteen:notify";
  var meta = document.querySelector('meta[name="turn-alerts"]');
  var icon = document.querySelector('link[rel="icon"][data-icon]');
  if (!meta) return;  // signed out: nothing waits on anyone

  var yourTurn = meta.getAttribute("data-your-turn") || "";
  var TURN_PREFIX = yourTurn + " — ";

  function badge() { return document.getElementById("turns-waiting"); }
  function countNow() {
    var b = badge();
    return b ? parseInt(b.getAttribute("data-count"), 10) || 0 : 0;
  }
  function tableEl() { return document.getElementById("table"); }
  function myTurnOnTable() {
    var t = tableEl();
    return !!(t && t.querySelector(".turn-line.my-turn"));
  }

  /* The page's own title, without the parts this file adds. */
  var baseTitle = document.title.replace(/^\(\d+\)\s+/, "");
  if (baseTitle.indexOf(TURN_PREFIX) === 0) baseTitle = baseTitle.slice(TURN_PREFIX.length);

  var count = countNow();
  var myTurn = myTurnOnTable();

  function showTitleAndIcon() {
    document.title = (count > 0 ? "(" + count + ") " : "") + (myTurn ? TURN_PREFIX : "") + baseTitle;
    if (icon) {
      var href = icon.getAttribute(count > 0 || myTurn ? "data-icon-turn" : "data-icon");
      if (href && icon.getAttribute("href") !== href) icon.setAttribute("href", href);
    }
  }

  /* ---- the chime ---------------------------------------------------------------------- */

  function soundOn() { return meta.getAttribute("data-sound") === "on"; }
  var audio = null;
  function chime() {
    if (!soundOn()) return;
    try {
      if (!audio) audio = new Audio(meta.getAttribute("data-sound-url"));
      audio.currentTime = 0;
      var playing = audio.play();
      if (playing && playing.catch) playing.catch(function () { /* not allowed before a click: stay quiet */ });
    } catch (e) { /* no audio here */ }
  }

  function showSound(form, on) {
    var button = form.querySelector("button");
    form.querySelector('input[name="sound"]').value = on ? "off" : "on";
    button.textContent = button.getAttribute(on ? "data-label-on" : "data-label-off");
  }

  document.addEventListener("submit", function (e) {
    var form = e.target.closest && e.target.closest("[data-sound-toggle]");
    if (!form || !window.fetch || !window.FormData) return;
    e.preventDefault();
    var on = form.querySelector('input[name="sound"]').value === "on";
    fetch(form.action, {
      method: "POST", body: new FormData(form), credentials: "same-origin", headers: { "X-Requested-With": "fetch" }
    }).then(function (response) {
      if (!response.ok) throw new Error(String(response.status));
      meta.setAttribute("data-sound", on ? "on" : "off");
      showSound(form, on);
      if (on) chime();  // the click allows the sound, and the person hears what they turned on
    }).catch(function () { form.submit(); });  // let the plain form try (and show any error page)
  });

  /* ---- notifications ------------------------------------------------------------------ */

  var canNotify = typeof window.Notification === "function";
  function notifyWanted() {
    try { return localStorage.getItem(NOTIFY_KEY) === "on"; } catch (e) { return false; }
  }
  function setNotifyWanted(on) {
    try { if (on) localStorage.setItem(NOTIFY_KEY, "on"); else localStorage.removeItem(NOTIFY_KEY); } catch (e) { /* private mode */ }
  }
  function notifyActive() { return canNotify && notifyWanted() && window.Notification.permission === "granted"; }

  function showNotifyButtons() {
    Array.prototype.forEach.call(document.querySelectorAll("[data-notify-toggle]"), function (button) {
      if (!canNotify) return;
      var row = button.closest("[data-notify-row]");
      if (row) row.hidden = false;
      button.hidden = false;
      var label = window.Notification.permission === "denied" ? "data-label-blocked"
        : notifyActive() ? "data-label-on" : "data-label-off";
      button.textContent = button.getAttribute(label);
      button.setAttribute("aria-pressed", notifyActive() ? "true" : "false");
    });
  }

  document.addEventListener("click", function (e) {
    var button = e.target.closest && e.target.closest("[data-notify-toggle]");
    if (!button || !canNotify) return;
    if (notifyActive()) { setNotifyWanted(false); showNotifyButtons(); return; }
    // Asked only here, after the person pressed the button.
    var asked = window.Notification.requestPermission();
    Promise.resolve(asked).then(function (answer) {
      var permission = answer || window.Notification.permission;
      setNotifyWanted(permission === "granted");
      showNotifyButtons();
    });
  });

  function notify() {
    if (!notifyActive() || document.visibilityState !== "hidden") return;
    var button = document.querySelector("[data-notify-toggle][data-notify-title]");
    var title = button ? button.getAttribute("data-notify-title") : yourTurn;
    var url = button ? button.getAttribute("data-notify-url") : meta.getAttribute("data-my-games-url");
    try {
      var note = new window.Notification(title, {
        body: meta.getAttribute("data-site") || "",
        tag: "threethirteen-turn",
        icon: icon ? icon.getAttribute("data-icon-turn") : undefined
      });
      note.onclick = function () {
        window.focus();
        if (url && location.pathname !== url) location.href = url;
        note.close();
      };
    } catch (e) { /* e.g. Android Chrome wants a service worker: no notice then */ }
  }

  function turnCame() { chime(); notify(); }

  /* ---- following the count and the table ---------------------------------------------- */

  document.addEventListener("threethirteen:user", function (e) {
    var data = e.detail || {};
    if (data.type !== "turns" || typeof data.count !== "number") return;
    var before = count;
    count = data.count;
    showTitleAndIcon();
    // On a table the table's own turn decides (the count may arrive before or after it).
    if (!tableEl() && count > before) turnCame();
  });

  document.addEventListener("threethirteen:table", function () {
    var before = myTurn;
    myTurn = myTurnOnTable();
    showTitleAndIcon();
    if (myTurn && !before) turnCame();
  });

  function start() {
    count = countNow();
    myTurn = myTurnOnTable();
    showTitleAndIcon();
    showNotifyButtons();
  }
  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", start);
  else start();
})();
