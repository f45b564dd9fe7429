/* Table talk (progressive enhancement: the chat's forms work as plain posts without this).
 *
 * - The game's socket (opened by live.js on the table page; by this file on a record page) says only
 *   {"type": "chat"} when a channel this person may read changed; the page then fetches its own view
 *   of the chat (/games/<id>/chat/) and swaps the parts marked data-chat-swap, so what is typed in
 *   the message box stays.  After a reconnect it fetches once to catch up.
 * - The chat's forms (send, quick phrases, report, mute) post with fetch; the answer is the chat.
 * Words shown to people come from the templates.
 */
(function () {
  "use strict";

  function chatEl() { return document.getElementById("chat"); }

  var fetching = false, again = false;

  function swapIds(root) {
    return Array.prototype.map.call(root.querySelectorAll("[data-chat-swap]"), function (el) { return el.id; }).join(" ");
  }

  /* Put the fresh chat in: part by part when it has the same parts (the boxes keep what is typed), whole otherwise. */
  function swapIn(fresh) {
    var chat = chatEl();
    if (!chat || !fresh) return;
    if (swapIds(chat) === swapIds(fresh)) {
      Array.prototype.forEach.call(fresh.querySelectorAll("[data-chat-swap]"), function (part) {
        var old = document.getElementById(part.id);
        if (old) old.replaceWith(document.importNode(part, true));
      });
    } else {
      var typed = {};
      Array.prototype.forEach.call(chat.querySelectorAll("input[name=text]"), function (input) { typed[input.id] = input.value; });
      var focused = document.activeElement && chat.contains(document.activeElement) ? document.activeElement.id : "";
      chat.replaceWith(document.importNode(fresh, true));
      Object.keys(typed).forEach(function (id) { var input = document.getElementById(id); if (input && !input.value) input.value = typed[id]; });
      if (focused && document.getElementById(focused)) document.getElementById(focused).focus();
    }
    // The newest lines are at the bottom of each box (column-reverse keeps a box scrolled there).
    Array.prototype.forEach.call(chatEl().querySelectorAll(".chat-scroll"), function (box) { box.scrollTop = box.scrollHeight; });
    document.dispatchEvent(new CustomEvent("threethirteen:chat"));
  }

  function freshChat(html) {
    return new DOMParser().parseFromString(html, "text/html").getElementById("chat");
  }

  function refresh() {
    var chat = chatEl();
    if (!chat || !chat.dataset.chatUrl) return;
    if (fetching) { again = true; return; }
    fetching = true;
    fetch(chat.dataset.chatUrl, { credentials: "same-origin", cache: "no-store", headers: { "X-Requested-With": "fetch" } })
      .then(function (response) {
        if (!response.ok || response.redirected) throw new Error(String(response.status));
        return response.text();
      })
      .then(function (html) { swapIn(freshChat(html)); })
      .catch(function () { /* offline: the next signal or reconnect tries again */ })
      .then(function () { fetching = false; if (again) { again = false; refresh(); } });
  }

  /* The chat's forms post with fetch; the answer is the chat (with a refusal in it, and a 4xx status). */
  document.addEventListener("submit", function (e) {
    var form = e.target, chat = chatEl();
    if (!chat || !chat.contains(form) || !window.fetch || !window.FormData) return;
    if (!form.hasAttribute("data-chat-form") && !form.hasAttribute("data-chat-action")) return;
    e.preventDefault();
    var body = new FormData(form);
    if (e.submitter && e.submitter.name) body.set(e.submitter.name, e.submitter.value);
    var box = form.querySelector("input[name=text]");
    var buttons = form.querySelectorAll("button");
    Array.prototype.forEach.call(buttons, function (b) { b.disabled = true; });
    fetch(form.action, { method: "POST", body: body, credentials: "same-origin", headers: { "X-Requested-With": "fetch" } })
      .then(function (response) { return response.text().then(function (html) { return [response, html]; }); })
      .then(function (pair) {
        var fresh = freshChat(pair[1]);
        if (!fresh) { document.open(); document.write(pair[1]); document.close(); return; }
        if (pair[0].ok && box) box.value = "";
        swapIn(fresh);
        var newBox = box && document.getElementById(box.id);
        if (newBox) newBox.focus();
      })
      .catch(function () { /* the server cannot be reached: the message stays in the box to send again */ })
      .then(function () { Array.prototype.forEach.call(buttons, function (b) { b.disabled = false; }); });
  });

  document.addEventListener("threethirteen:game", function (e) {
    if (e.detail && e.detail.type === "chat") refresh();
  });

  /* Catch up after the table's socket reconnects (live.js shows "Live" again). */
  function watchLiveStatus() {
    var status = document.querySelector("[data-live-status]");
    if (!status || !window.MutationObserver) return;
    var last = status.getAttribute("data-state");
    new MutationObserver(function () {
      var now = status.getAttribute("data-state");
      if (now === "live" && last && last !== "live") refresh();
      last = now;
    }).observe(status, { attributes: true, attributeFilter: ["data-state"] });
  }

  /* A page without the table (the record): a socket of its own, for the chat alone. */
  function ownSocket() {
    var chat = chatEl(), table = document.getElementById("table");
    if (!chat || table || !chat.dataset.socketPath || !window.WebSocket) return;
    var retries = 0;
    function open() {
      var socket = new WebSocket((location.protocol === "https:" ? "wss://" : "ws://") + location.host + chat.dataset.socketPath);
      socket.onopen = function () { if (retries) refresh(); retries = 0; };
      socket.onmessage = function (event) {
        var data;
        try { data = JSON.parse(event.data); } catch (err) { return; }
        if (data.type === "chat") refresh();
      };
      socket.onclose = function (event) {
        if (event && event.code >= 4400 && event.code < 4500) return;  // refused: nothing to hear here
        retries += 1;
        setTimeout(open, Math.min(10000, 500 * Math.pow(2, retries)));
      };
    }
    open();
  }

  function start() { watchLiveStatus(); ownSocket(); }
  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", start);
  else start();
})();
