/* Table talk (progressive enhancement: the chat's forms work as plain posts without this).
 *
 * - The game's socket (opened by live.js on the table page; by this file on a record page) says only
 *   {"type": "chat"} when a channel this person may read changed; the page then fetches its own view
 *   of the chat (/games/<id>/chat/) and swaps the parts marked data-chat-swap, so what is typed in
 *   the message box stays.  After a reconnect it fetches once to catch up.
 * - The chat's forms (send, quick phrases, report, mute) post with fetch; the answer is the chat.
 * - The person's own socket says {"type": "chat"} when a moderator muted them or let them chat again.
 * - New lines of the others are said to screen readers, and counted beside the table's "Chat" link
 *   while the chat is out of view (a phone shows it far below the hand).
 * Words shown to people come from the templates.
 */
(function () {
  "use strict";

  function chatEl() { return document.getElementById("chat"); }

  var fetching = false, again = false;

  function swapIds(root) {
    return Array.prototype.map.call(root.querySelectorAll("[data-chat-swap]"), function (el) { return el.id; }).join(" ");
  }

  /* Where the focus is in the chat, in words a fresh chat can answer: an id, else a button's name and value. */
  function focusOf(chat) {
    var active = document.activeElement;
    if (!active || !chat.contains(active)) return null;
    return { id: active.id, name: active.getAttribute("name"), value: active.getAttribute("value") };
  }
  function refocus(focus) {
    var chat = chatEl(), target = null;
    if (!focus || !chat) return;
    if (focus.id) target = document.getElementById(focus.id);
    if (!target && focus.name) {
      target = Array.prototype.filter.call(chat.querySelectorAll("button[name]"), function (b) {
        return b.getAttribute("name") === focus.name && b.getAttribute("value") === focus.value;
      })[0];
    }
    if (target && document.activeElement !== target) target.focus();
  }
  function lineIds(chat) {
    return Array.prototype.map.call(chat.querySelectorAll(".chat-line[id]"), function (li) { return li.id; });
  }

  /* Put the fresh chat in: part by part when it has the same parts, whole otherwise; what is typed in the
   * boxes and where the focus was stay. */
  function swapIn(fresh) {
    var chat = chatEl();
    if (!chat || !fresh) return;
    var typed = {}, focus = focusOf(chat), known = lineIds(chat);
    Array.prototype.forEach.call(chat.querySelectorAll("input[name=text]"), function (input) { typed[input.id] = input.value; });
    if (swapIds(chat) === swapIds(fresh)) {
      Array.prototype.forEach.call(fresh.querySelectorAll("[data-chat-swap]"), function (part) {
        var old = document.getElementById(part.id);
        if (!old) return;
        // The message box's part only when its state changed (muted, or free again): swapping it under a
        // person typing moved their cursor, lost an input method's unfinished word and shut a phone's keyboard.
        if (part.hasAttribute("data-chat-state") && old.getAttribute("data-chat-state") === part.getAttribute("data-chat-state")) return;
        old.replaceWith(document.importNode(part, true));
      });
    } else {
      chat.replaceWith(document.importNode(fresh, true));
      watchChatInView();  // the new section
    }
    Object.keys(typed).forEach(function (id) { var input = document.getElementById(id); if (input && !input.value) input.value = typed[id]; });
    refocus(focus);
    sayNewLines(known);
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
  // The person's own socket: a moderator muted them from chat, or let them chat again.
  document.addEventListener("threethirteen:user", function (e) {
    if (e.detail && e.detail.type === "chat") refresh();
  });

  /* ---- the others' new lines: said, and counted beside "Chat" while the chat is out of view ---- */

  var unread = 0, chatInView = true, inViewObserver = null;
  function showUnread() {
    var badge = document.querySelector("[data-chat-unread]");
    if (!badge) return;
    badge.hidden = unread === 0;
    badge.textContent = String(unread);
  }
  function sayNewLines(known) {
    var chat = chatEl();
    if (!chat || !known) return;
    var fresh = Array.prototype.filter.call(chat.querySelectorAll(".chat-line[id]"), function (li) {
      return known.indexOf(li.id) === -1 && !li.classList.contains("mine");
    });
    if (!fresh.length) return;
    var say = chat.querySelector("[data-chat-announce]");
    if (say) {
      var words = fresh.slice(-3).map(function (li) {
        var author = li.querySelector(".chat-author"), text = li.querySelector(".chat-text");
        return (author ? author.textContent + ": " : "") + (text ? text.textContent : "");
      }).join(". ");
      // A beat later: a region the whole chat's swap just put in the page is not read when it is filled at once.
      setTimeout(function () { say.textContent = words; }, 100);
    }
    if (!chatInView) { unread += fresh.length; showUnread(); }
  }
  function watchChatInView() {
    var chat = chatEl();
    if (!chat || !window.IntersectionObserver || !document.querySelector("[data-chat-unread]")) return;
    if (inViewObserver) inViewObserver.disconnect();
    inViewObserver = new IntersectionObserver(function (entries) {
      chatInView = entries[entries.length - 1].isIntersecting;
      if (chatInView && unread) { unread = 0; showUnread(); }
    });
    inViewObserver.observe(chat);
  }

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

  function start() { watchLiveStatus(); ownSocket(); watchChatInView(); }
  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", start);
  else start();
})();
