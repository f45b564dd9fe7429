/* Live table and header updates (progressive enhancement: every page works without this).
 *
 * - Game page: a WebSocket to /ws/games/<id>/ says only "version N".  When N
 *   differs from the version shown, the page fetches its own view of the
 *   table from the server (the same context as the page) and swaps the
 *   #table element.  On (re)connect the server sends the current version, so
 *   a page that missed anything while offline catches up; a skipped version
 *   is no different: the page always fetches the latest table.
 * - The table's move forms are posted with fetch and the answer swapped in
 *   (no reload, no scroll jump); without JavaScript they are plain POSTs.
 * - The hand keeps the order the player arranged it in (drag, or the
 *   Arrange buttons), per tab in sessionStorage, across swaps and reloads.
 * - Keyboard focus stays on the hand across a swap (the card drawn, the same card,
 *   the card now in its place, or the hand), and the new turn line is read out.
 * - Every message of the game socket is re-dispatched as a "threethirteen:game" DOM event
 *   (chat.js fetches the chat on {"type": "chat"}).
 * - Lobby: a signed-in person's lobby opens /ws/lobby/, which says "lobby" when a listed table
 *   changed (created, a seat taken or left, started, called off), and on (re)connect and at each
 *   heartbeat the stamp of the lists as they are now; on a change, or another stamp than the one
 *   shown, the page fetches its lists (/lobby/lists/) and swaps #lobby-lists, unless the person's
 *   focus is in them (a join being typed): then a moment later.  While the socket is down the lists
 *   are re-checked every 10 s.
 * - Every signed-in page opens /ws/user/ and re-dispatches each message as a
 *   "threethirteen:user" DOM event (the header's "your turn" count).
 * Words shown to people come from the templates (data-label-* attributes) or go through
 * Django's JavaScript catalog (gettext, interpolate; loaded before this file by base.html).
 */
(function () {
  "use strict";

  var gettext = window.gettext || function (text) { return text; };
  var interpolate = window.interpolate || function (format, values) {
    return format.replace(/%\((\w+)\)s/g, function (all, name) { return String(values[name]); });
  };

  var RETRY_MIN_MS = 500;
  var RETRY_MAX_MS = 5000;

  function socketUrl(path) {
    return (location.protocol === "https:" ? "wss://" : "ws://") + location.host + path;
  }

  /* A WebSocket that reconnects by itself, with a growing pause. */
  function LiveSocket(path, handlers) {
    this.path = path;
    this.handlers = handlers;
    this.retries = 0;
    this.timer = null;
    this.socket = null;
    this.open();
  }
  LiveSocket.prototype.open = function () {
    var self = this;
    clearTimeout(this.timer);
    this.timer = null;
    if (this.socket && this.socket.readyState <= 1) return;
    var socket = new WebSocket(socketUrl(this.path));
    this.socket = socket;
    if (this.handlers.connecting) this.handlers.connecting();
    socket.onopen = function () {
      self.retries = 0;
      self.heard = Date.now();
      if (self.handlers.open) self.handlers.open();
    };
    socket.onmessage = function (event) {
      self.heard = Date.now();
      var data;
      try { data = JSON.parse(event.data); } catch (e) { return; }
      if (self.handlers.message) self.handlers.message(data);
    };
    socket.onclose = function (event) {
      if (self.socket !== socket) return;
      if (self.handlers.close) self.handlers.close();
      // 4403: this person may no longer watch (e.g. a players-only game started); 4401: they signed
      // out (in another tab): reconnecting would be refused again; reload to show why.
      if (event && (event.code === 4403 || event.code === 4401)) { location.reload(); return; }
      self.later();
    };
  };
  LiveSocket.prototype.later = function () {
    var self = this;
    if (this.timer) return;
    var pause = Math.min(RETRY_MAX_MS, RETRY_MIN_MS * Math.pow(2, this.retries));
    this.retries += 1;
    this.timer = setTimeout(function () { self.open(); }, pause * (0.8 + Math.random() * 0.4));
  };
  LiveSocket.prototype.isOpen = function () { return !!this.socket && this.socket.readyState === 1; };
  /* The socket is known dead (offline, or a missed heartbeat), though the browser may take long to
   * say so: forget it at once (its late close event is ignored), tell the page, reconnect later. */
  LiveSocket.prototype.drop = function () {
    var socket = this.socket;
    if (!socket) return;
    this.socket = null;
    try { socket.close(); } catch (e) { /* already closing */ }
    if (this.handlers.close) this.handlers.close();
    this.later();
  };
  LiveSocket.prototype.send = function (data) {
    if (this.isOpen()) this.socket.send(JSON.stringify(data));
  };
  LiveSocket.prototype.now = function () {
    /* Reconnect at once (back online, tab shown again) if the socket is down. */
    if (!this.socket || this.socket.readyState > 1) this.open();
  };

  /* ---- the hand: arranged order, kept per tab and round ---------------------------------- */

  function tableEl() { return document.getElementById("table"); }
  function handEl() { var t = tableEl(); return t && t.querySelector("[data-hand]"); }
  /* The hand in either view (the player's order, or "best melds" in groups), for keeping the focus on it. */
  function anyHandEl() { var t = tableEl(); return t && t.querySelector("[data-hand], [data-hand-melds]"); }
  function slots(hand) {
    return Array.prototype.filter.call(hand.children, function (el) { return el.classList.contains("hand-slot"); });
  }
  function slotCode(slot) { var c = slot.querySelector("[data-card]"); return c ? c.getAttribute("data-card") : ""; }
  function storageKey() {
    var t = tableEl();
    return t && t.dataset.round ? "threethirteen:hand:" + t.dataset.game + ":" + t.dataset.round : null;
  }
  function readOrder() {
    var key = storageKey();
    if (!key) return null;
    try { return JSON.parse(sessionStorage.getItem(key) || "null"); } catch (e) { return null; }
  }
  function saveOrder() {
    var key = storageKey(), hand = handEl();
    if (!key || !hand) return;
    try { sessionStorage.setItem(key, JSON.stringify(slots(hand).map(slotCode))); } catch (e) { /* private mode */ }
  }
  function forgetOrder() {
    var key = storageKey();
    if (key) { try { sessionStorage.removeItem(key); } catch (e) { /* ignore */ } }
  }
  /* Cards keep their arranged places; cards new to the hand go to the end (codes may repeat with two decks). */
  function applyOrder() {
    var hand = handEl(), order = readOrder();
    if (!hand || !order || !order.length) return;
    var pool = slots(hand), arranged = [];
    order.forEach(function (code) {
      for (var i = 0; i < pool.length; i++) {
        if (slotCode(pool[i]) === code) { arranged.push(pool.splice(i, 1)[0]); return; }
      }
    });
    arranged.concat(pool).forEach(function (slot) { hand.appendChild(slot); });
  }

  var arranging = false;

  function setUpHand() {
    var t = tableEl();
    if (!t) return;
    var tools = t.querySelector("[data-arrange-tools]"), hand = handEl();
    if (!tools || !hand) return;
    tools.hidden = false;
    var toggle = tools.querySelector("[data-arrange-toggle]");
    slots(hand).forEach(function (slot) {
      if (slot.querySelector(".arrange-moves")) return;
      var moves = document.createElement("span");
      moves.className = "arrange-moves";
      var card = slot.querySelector("[data-card]");  // its name, not its title ("Discard the ...")
      var name = { card: card.getAttribute("data-name") || card.getAttribute("title") || "" };
      [
        // Translators: the label of a button that moves a card of the hand one place left, e.g. "Move left 7 of hearts"
        [interpolate(gettext("Move left %(card)s"), name, true), "‹", -1],
        // Translators: the label of a button that moves a card of the hand one place right
        [interpolate(gettext("Move right %(card)s"), name, true), "›", 1]
      ].forEach(function (spec) {
        var b = document.createElement("button");
        b.type = "button";
        b.className = "arrange-move";
        b.setAttribute("data-move", String(spec[2]));
        b.setAttribute("aria-label", spec[0]);
        b.textContent = spec[1];
        moves.appendChild(b);
      });
      slot.appendChild(moves);
    });
    showArranging(arranging);
  }
  function showArranging(on) {
    arranging = on;
    var t = tableEl(), toggle = t && t.querySelector("[data-arrange-toggle]");
    if (!toggle) return;
    t.classList.toggle("arranging", on);
    toggle.textContent = toggle.getAttribute(on ? "data-label-off" : "data-label-on");
  }
  function moveSlot(slot, step) {
    var hand = slot.parentNode, all = slots(hand), at = all.indexOf(slot), to = at + step;
    if (to >= 0 && to < all.length) {
      var focused = document.activeElement;
      if (step < 0) hand.insertBefore(slot, all[to]); else hand.insertBefore(slot, all[to].nextSibling);
      if (focused && slot.contains(focused) && document.activeElement !== focused) focused.focus();  // moving it blurred it
      saveOrder();
    }
    sayPlace(slot);
  }
  /* Where a moved card now is, said (an accessibility tester arranged a hand blind: nothing said the place). */
  function sayPlace(slot) {
    var say = document.querySelector("[data-announce]"), card = slot.querySelector("[data-card]");
    if (!say || !card) return;
    var all = slots(slot.parentNode);
    // Translators: said when a card of the hand was moved, e.g. "7 of hearts: place 2 of 4"
    say.textContent = interpolate(gettext("%(card)s: place %(place)s of %(count)s"), {
      card: card.getAttribute("data-name") || card.getAttribute("title") || "",
      place: all.indexOf(slot) + 1,
      count: all.length
    }, true);
  }

  /* Drag with the pointer (mouse or finger): a short press is still a tap (discard). */
  var drag = null, swallowClick = false;
  document.addEventListener("pointerdown", function (e) {
    var slot = e.target.closest && e.target.closest("#table [data-hand] .hand-slot");
    if (!slot || e.button !== 0 || e.target.closest(".arrange-move")) return;
    drag = { slot: slot, x: e.clientX, y: e.clientY, moving: false, pointer: e.pointerId };
  });
  document.addEventListener("pointermove", function (e) {
    if (!drag || e.pointerId !== drag.pointer) return;
    if (!drag.moving) {
      if (Math.abs(e.clientX - drag.x) + Math.abs(e.clientY - drag.y) < 12) return;
      drag.moving = true;
      drag.slot.classList.add("dragging");
    }
    e.preventDefault();
    var under = document.elementFromPoint(e.clientX, e.clientY);
    var target = under && under.closest && under.closest(".hand-slot");
    if (!target || target === drag.slot || target.parentNode !== drag.slot.parentNode) return;
    var box = target.getBoundingClientRect();
    var before = e.clientX < box.left + box.width / 2;
    target.parentNode.insertBefore(drag.slot, before ? target : target.nextSibling);
  });
  function endDrag(e) {
    if (!drag || (e && e.pointerId !== drag.pointer)) return;
    if (drag.moving) {
      drag.slot.classList.remove("dragging");
      swallowClick = true;
      setTimeout(function () { swallowClick = false; }, 0);
      saveOrder();
    }
    drag = null;
  }
  document.addEventListener("pointerup", endDrag);
  document.addEventListener("pointercancel", endDrag);

  document.addEventListener("click", function (e) {
    if (swallowClick && e.target.closest && e.target.closest("[data-hand]")) {
      e.preventDefault(); e.stopPropagation(); swallowClick = false; return;
    }
    var toggle = e.target.closest && e.target.closest("#table [data-arrange-toggle]");
    if (toggle) { showArranging(!arranging); return; }
    var move = e.target.closest && e.target.closest("#table .arrange-move");
    if (move) { moveSlot(move.closest(".hand-slot"), parseInt(move.getAttribute("data-move"), 10)); return; }
    if (arranging && e.target.closest && e.target.closest("#table [data-hand] .card")) {
      e.preventDefault();  // while arranging, a tap on a card does not discard it
      return;
    }
    var sortLink = e.target.closest && e.target.closest("#table .sort-links a");
    if (sortLink) forgetOrder();  // the server's order replaces the arranged one
  }, true);

  /* ---- fetching and swapping the table --------------------------------------------------- */

  var latestKnown = 0, fetching = false, posting = false;
  /* A table fetch that fails (network, a 5xx while the server or its database restarts) is tried
   * again with a growing, jittered pause (at most FETCH_RETRY_MAX_MS) until it succeeds; meanwhile
   * the status says "Catching up…". */
  var FETCH_RETRY_MIN_MS = 500, FETCH_RETRY_MAX_MS = 10000;
  var fetchFailures = 0, fetchRetryTimer = null;
  var NOT_RETRIED = { notRetried: true };

  function shownVersion() { var t = tableEl(); return t ? parseInt(t.dataset.version, 10) || 0 : 0; }

  function freshTable(html) {
    var doc = new DOMParser().parseFromString(html, "text/html");
    return doc.getElementById("table");
  }

  /* ---- keyboard focus across swaps: it stays on the hand ----------------------------------- */

  function focusable(el) {
    return !!el && !el.disabled && !el.hidden && typeof el.focus === "function" &&
      (el.tabIndex >= 0 || el.hasAttribute("tabindex"));
  }
  function handCards(hand) {
    return hand ? Array.prototype.slice.call(hand.querySelectorAll(".hand-slot [data-card]")) : [];
  }
  /* Where the focus was before a swap, in words a new table can answer: a card of the hand (its
   * code, its place, the codes around it) or a control of the table (its tag, name, value, text). */
  function focusBefore() {
    var t = tableEl(), active = document.activeElement;
    if (!t || !active || active === document.body || !t.contains(active)) return null;
    var hand = anyHandEl(), cards = handCards(hand), action = active.closest("form") ? active.closest("form").getAttribute("action") || "" : "";
    var before = {
      inHand: !!hand && hand.contains(active),
      card: active.getAttribute("data-card"),
      index: cards.indexOf(active),
      codes: cards.map(function (c) { return c.getAttribute("data-card"); }),
      move: /\/play\/$/.test(action),
      seen: /\/seen\/$/.test(action),
      signature: signature(active),
      place: placeOf(active)
    };
    return before;
  }
  /* What the script made focusable (a title, a line) is found again by its id or its part of the table. */
  function placeOf(el) {
    if (el.id) return "#" + CSS.escape(el.id);
    var parts = [".turn-line", "[data-blocked-hint]"];
    for (var i = 0; i < parts.length; i++) if (el.matches(parts[i])) return parts[i];
    return "";
  }
  function signature(el) {
    return [el.tagName, el.getAttribute("name") || "", el.getAttribute("value") || "", el.getAttribute("href") || "",
            (el.textContent || "").trim()].join("|");
  }
  /* After a swap: a move (draw, discard, go out) or a card of the hand brings the focus back to the
   * hand: the card just drawn, else the same card, else the card now in its place, else the hand
   * itself; any other control of the table gets its twin in the new table. */
  function focusAfter(before) {
    if (!before) return;
    var t = tableEl(), hand = anyHandEl(), cards = handCards(hand), target = null;
    var roundEnd = t.querySelector("#round-end-title");
    if (before.seen) {
      // "Next deal": the new deal's first step, else what the turn line says.
      target = t.querySelector(".piles button") || marked(t.querySelector(".turn-line"));
    } else if (roundEnd && !before.roundEnd && (before.inHand || before.move)) {
      // The round just ended: what happened in it, read from its title on.
      target = marked(roundEnd);
    } else if (before.inHand || before.move) {
      var usable = cards.filter(focusable);
      var left = before.codes.slice();
      var drawn = cards.filter(function (c) {
        var at = left.indexOf(c.getAttribute("data-card"));
        if (at === -1) return true;
        left.splice(at, 1);
        return false;
      });
      if (before.move && drawn.length === 1) {
        // The card just drawn; one taken from the discard pile cannot be discarded at once and is no
        // button then: the line that says so, naming it.
        target = focusable(drawn[0]) ? drawn[0] : marked(t.querySelector("[data-blocked-hint]"));
      }
      if (!target && before.card) target = usable.filter(function (c) { return c.getAttribute("data-card") === before.card; })[0];
      if (!target && before.index >= 0 && usable.length) target = usable[Math.min(before.index, usable.length - 1)];
      if (!target && usable.length && before.move) target = usable[0];
      if (!target && hand) { hand.setAttribute("tabindex", "-1"); target = hand; }
    } else {
      var all = t.querySelectorAll("a[href], button, input, select, summary, [tabindex]");
      for (var i = 0; i < all.length && !target; i++) if (signature(all[i]) === before.signature) target = all[i];
      // A title or a line the focus was put on (the round's end, the turn line): the new table has it without
      // the tabindex that made it focusable, and the focus fell to the page when the bots' first moves of the
      // next deal came a moment after a round's end (an accessibility tester).
      if (!target && before.place) target = marked(t.querySelector(before.place));
    }
    if (!target && (before.inHand || before.move)) {
      // The hand is gone (the round or the game is over): the line that says what happened.
      target = marked(t.querySelector(".turn-line"));
    }
    if (!target) return;
    target.focus({ preventScroll: true });
    // After the person's own step, what now has the focus is in view (on a phone it was often below the fold).
    if (before.inHand || before.move || before.seen) reveal(target);
  }
  /* The hand is one stop of Tab (a roving tabindex): the card that has or last had the focus in the
   * table shown, else the first that can be chosen, is in the Tab order; the others are reached by the arrow keys (below).  Without
   * the script every card is a stop of its own. */
  var lastCard = null;  // the card of the hand that last had the focus: { code, index } (tables are swapped)
  function rove(hand, current) {
    var usable = handCards(hand).filter(focusable);
    if (!usable.length) return;
    if (usable.indexOf(current) === -1 && lastCard) {
      current = usable.filter(function (c) { return c.getAttribute("data-card") === lastCard.code; })[0] ||
        usable[Math.min(lastCard.index, usable.length - 1)];
    }
    if (usable.indexOf(current) === -1) current = usable[0];
    usable.forEach(function (c) { c.setAttribute("tabindex", c === current ? "0" : "-1"); });
  }
  function roveFromFocus() {
    var hand = anyHandEl(), active = document.activeElement;
    if (hand) rove(hand, hand.contains(active) ? active : null);
  }
  document.addEventListener("focusin", function (e) {
    var hand = anyHandEl();
    if (!hand || !hand.contains(e.target) || !e.target.hasAttribute("data-card")) return;
    lastCard = { code: e.target.getAttribute("data-card"), index: handCards(hand).filter(focusable).indexOf(e.target) };
    rove(hand, e.target);
  });
  /* The arrow keys move the focus between the hand's cards that can be chosen; Home and End go to the
   * first and the last. */
  document.addEventListener("keydown", function (e) {
    if (e.altKey || e.ctrlKey || e.metaKey) return;
    var hand = anyHandEl(), active = document.activeElement;
    if (!hand || !active || !hand.contains(active) || !active.hasAttribute("data-card")) return;
    if (e.shiftKey) {
      // Shift and an arrow move the card itself, in the player's own order (not "best melds", arranged by the site).
      var step = { ArrowLeft: -1, ArrowUp: -1, ArrowRight: 1, ArrowDown: 1 }[e.key];
      if (!step || !hand.hasAttribute("data-hand")) return;
      e.preventDefault();
      moveSlot(active.closest(".hand-slot"), step);
      reveal(active);
      return;
    }
    var usable = handCards(hand).filter(focusable), at = usable.indexOf(active), to = -1;
    if (at === -1) return;
    if (e.key === "ArrowRight" || e.key === "ArrowDown") to = Math.min(at + 1, usable.length - 1);
    else if (e.key === "ArrowLeft" || e.key === "ArrowUp") to = Math.max(at - 1, 0);
    else if (e.key === "Home") to = 0;
    else if (e.key === "End") to = usable.length - 1;
    if (to === -1) return;
    e.preventDefault();  // the page does not scroll
    usable[to].focus();
    reveal(usable[to]);
  });
  /* ``el`` made focusable by script only (tabindex -1), or null. */
  function marked(el) {
    if (el && !el.hasAttribute("tabindex")) el.setAttribute("tabindex", "-1");
    return el;
  }
  function reveal(el) {
    var box = el.getBoundingClientRect();
    if (box.bottom > window.innerHeight || box.top < 0) el.scrollIntoView({ block: "nearest" });
  }

  /* The turn line is replaced with the table, and a live region that is new is not read out:
   * a region outside the table says the new line when its words changed (the clock, which
   * ticks, is left out). */
  function turnText() {
    var line = tableEl() && tableEl().querySelector(".turn-line");
    if (!line) return "";
    var words = line.cloneNode(true), clock = words.querySelector(".clock");
    if (clock) clock.remove();
    return words.textContent.replace(/\s+/g, " ").trim();
  }
  /* The keys of the recent moves' lines shown (``data-recent``: "move.n"). */
  function recentKeys() {
    var t = tableEl();
    return t ? Array.prototype.map.call(t.querySelectorAll("[data-recent]"), function (li) { return li.getAttribute("data-recent"); }) : [];
  }
  /* What the others did since the table shown before (lines of moves not the person's own), oldest first; a
   * round's end as {roundEnd: its line}, which stands for the whole round's end, said in full where a summary shows. */
  function newMoves(knownKeys) {
    var t = tableEl(), lines = [];
    if (!t || !knownKeys.length) return lines;
    Array.prototype.forEach.call(t.querySelectorAll("[data-recent]"), function (li) {
      if (knownKeys.indexOf(li.getAttribute("data-recent")) === -1 && !li.hasAttribute("data-mine")) {
        // Said with every card by its name ("jack of diamonds (wild)", not "J♦"), and the "bot move" mark.
        var said = li.getAttribute("data-said"), mark = li.querySelector(".pill");
        var words = ((said || li.textContent) + (said && mark ? " " + mark.textContent : "")).replace(/\s+/g, " ").trim();
        lines.unshift(li.hasAttribute("data-round-end") ? { roundEnd: words } : words);
      }
    });
    return lines.slice(-6);
  }
  /* Parts said one after another: a full stop between two only where the first ends without one (the move
   * lines end in theirs, in every language: a tester heard "Ada drew from the stock.. Ada discarded K♣.."). */
  function sentences(parts) {
    return parts.map(function (part) { return part.replace(/\s+/g, " ").trim(); }).filter(Boolean)
      .map(function (part, i, all) { return i < all.length - 1 && !/[.!?…:]$/.test(part) ? part + "." : part; })
      .join(" ");
  }
  /* A round that just ended, in words: its title, how it ended, and each player's points. */
  function roundEndText() {
    var t = tableEl(), title = t && t.querySelector("#round-end-title");
    if (!title) return "";
    var box = title.closest(".round-result"), parts = [title.textContent];
    var story = box.querySelector(".round-story p, .round-result > p");
    if (story) parts.push(story.getAttribute("data-said") || story.textContent);  // each card by its name
    Array.prototype.forEach.call(box.querySelectorAll(".result-head"), function (head) { parts.push(head.textContent); });
    return sentences(parts);
  }
  /* Say what changed: the others' moves, a round's end, the new turn line (each only when new).  A round's end
   * is said where it came among the moves: the last moves of the round, how it ended and each player's points,
   * then the next deal and its first moves (it came after them, with "Round 1 is over" said twice: an
   * accessibility tester). */
  function announce(previous) {
    var say = document.querySelector("[data-announce]"), text = turnText(), parts = [];
    if (!say) return;
    var ended = previous.roundEnd ? "" : roundEndText();
    previous.moves.forEach(function (line) {
      if (typeof line === "string") parts.push(line);
      else if (ended) { parts.push(ended); ended = ""; }
      else parts.push(line.roundEnd);  // no summary shown for it (the game's last round, or one still on screen)
    });
    if (ended) parts.push(ended);
    if (text && (text !== previous.turn || parts.length)) parts.push(text);
    if (parts.length) say.textContent = sentences(parts);
  }

  /* What the person opened and ticked in a disclosure of the table (the resignation's) stays so across
   * a swap: another player's move must not close it under their finger. */
  function openDisclosures(t) {
    return Array.prototype.map.call(t.querySelectorAll("details[id][open]"), function (d) {
      var ticked = Array.prototype.filter.call(d.querySelectorAll("input[type=checkbox]"), function (box) { return box.checked; });
      return { id: d.id, ticked: ticked.map(function (box) { return box.name; }) };
    });
  }
  function reopen(t, opened) {
    opened.forEach(function (was) {
      var d = document.getElementById(was.id);
      if (!d || !t.contains(d)) return;
      d.open = true;
      was.ticked.forEach(function (name) {
        Array.prototype.forEach.call(d.querySelectorAll("input[type=checkbox]"), function (box) { if (box.name === name) box.checked = true; });
      });
    });
  }

  function swapIn(fresh) {
    var t = tableEl();
    if (!t || !fresh) return false;
    var before = focusBefore(), opened = openDisclosures(t), keys = recentKeys();
    var said = { turn: turnText(), roundEnd: !!t.querySelector("#round-end-title") };
    if (before) before.roundEnd = said.roundEnd;
    t.replaceWith(document.importNode(fresh, true));
    reopen(tableEl(), opened);
    applyOrder();
    setUpHand();
    focusAfter(before);
    roveFromFocus();
    said.moves = newMoves(keys);
    announce(said);
    document.dispatchEvent(new CustomEvent("threethirteen:table", { detail: { version: shownVersion() } }));
    if (!behind() && catchingUp) { fetchFailures = 0; setCatchingUp(false); }  // e.g. a move's answer
    return true;
  }

  function behind() { return latestKnown > shownVersion(); }

  /* Fetch this page's own table and swap it in.  One request at a time; while a
   * move is being posted its answer is the fresh table.  When either ends, a
   * version heard meanwhile that is newer than the one shown fetches again.  A
   * failed fetch is tried again later (see fetchFailed), never given up.  ``newerOnly`` (true): keep the
   * table shown unless the fetched one is newer (a check that may well find nothing new). */
  function refresh(newerOnly) {
    var t = tableEl(), onlyNewer = newerOnly === true;
    if (!t || posting || fetching) return;
    clearTimeout(fetchRetryTimer);
    fetchRetryTimer = null;
    fetching = true;
    var before = shownVersion(), failed = false;
    fetch(t.dataset.partialUrl, { credentials: "same-origin", cache: "no-store", headers: { "X-Requested-With": "fetch" } })
      .then(function (response) {
        // Signed out (a redirect to log in) or no longer allowed: trying again would not help.
        if (response.redirected || response.status === 403 || response.status === 404) throw NOT_RETRIED;
        if (!response.ok) throw new Error(String(response.status));
        return response.text();
      })
      .then(function (html) {
        var fresh = freshTable(html);
        var version = fresh ? parseInt(fresh.dataset.version, 10) || 0 : -1;
        if (fresh && (onlyNewer ? version > shownVersion() : version >= shownVersion())) swapIn(fresh);
        if (behind() && shownVersion() <= before) throw new Error(String(shownVersion()));  // no newer table yet: try again later
        fetchFailures = 0;
        if (catchingUp) setCatchingUp(false);
      })
      .catch(function (error) {
        if (error === NOT_RETRIED) { if (catchingUp) setCatchingUp(false); return; }
        failed = true;
        fetchFailed();
      })
      .then(function () {
        fetching = false;
        if (!failed && behind()) refresh();
      });
  }

  /* Try the table again after a pause that doubles with each failure, capped, with jitter (so
   * that many pages that failed together do not all come back at the same instant). */
  function fetchFailed() {
    fetchFailures += 1;
    setCatchingUp(true);
    var pause = Math.min(FETCH_RETRY_MAX_MS, FETCH_RETRY_MIN_MS * Math.pow(2, fetchFailures - 1));
    clearTimeout(fetchRetryTimer);
    fetchRetryTimer = setTimeout(function () { fetchRetryTimer = null; refresh(); }, pause * (0.5 + Math.random() * 0.5));
  }

  /* Move forms (draw, discard, go out) and "Next deal" (a round's summary seen) post with fetch;
   * the answer is the table page. */
  document.addEventListener("submit", function (e) {
    var form = e.target, t = tableEl();
    if (!t || !t.contains(form) || !/\/(play|seen)\/$/.test(form.getAttribute("action") || "")) return;
    if (arranging && /\/play\/$/.test(form.getAttribute("action"))) { e.preventDefault(); return; }
    if (!window.fetch || !window.FormData) return;
    e.preventDefault();
    if (posting) return;
    posting = true;
    t.setAttribute("aria-busy", "true");
    var body = new FormData(form);
    if (e.submitter && e.submitter.name) body.set(e.submitter.name, e.submitter.value);
    postMove(form.action, body, 0);
  });

  /* ---- the connection: "Live" while updates arrive; a lost connection keeps the table ------ */

  var POST_RETRY_MIN_MS = 1000, POST_RETRY_MAX_MS = 15000, SLOW_POST_MS = 3000;
  var HEARTBEAT_EVERY_MS = 15000, HEARTBEAT_GRACE_MS = 8000;
  var POLL_WHILE_DOWN_MS = 10000;
  var gameSocket = null, pendingPost = null, pollTimer = null;

  /* The indicator next to the game's title: "connecting", "live" or "reconnecting" (the socket),
   * and "catching-up" while the socket is open but a table fetch is being tried again. */
  var socketState = "connecting", catchingUp = false;
  function setLiveStatus(state) {
    socketState = state;
    showStatus();
  }
  function setCatchingUp(on) {
    catchingUp = on;
    showStatus();
  }
  function showStatus() {
    var status = document.querySelector("[data-live-status]");
    if (!status) return;
    var state = socketState === "live" && catchingUp ? "catching-up" : socketState;
    status.hidden = false;
    status.setAttribute("data-state", state);
    status.classList.toggle("offline", state !== "live");
    var label = { live: "live", connecting: "connecting", "catching-up": "catching-up" }[state] || "offline";
    status.textContent = status.getAttribute("data-label-" + label);
  }

  /* why: "slow" (a move not answered yet), true (the site answered "try again"), else the connection. */
  function showConnectionNotice(on, why) {
    var notice = document.querySelector("[data-connection-notice]");
    if (!notice) return;
    if (!notice.hasAttribute("data-label-lost")) notice.setAttribute("data-label-lost", notice.textContent);
    var label = why === "slow" ? "data-label-slow" : why ? "data-label-site" : "data-label-lost";
    if (on) notice.textContent = notice.getAttribute(label);
    notice.hidden = !on;
  }

  /* Post a move; when the server cannot be reached (network error, or a proxy's 502-504 while it
   * restarts), the table stays, the notice says so, and the same post is tried again with a growing
   * pause (at once when the browser is back online).  A retry of a move that did arrive is refused
   * by the server as stale and answers with the current table and a message. */
  function postMove(action, body, attempt) {
    pendingPost = null;
    // A move not answered within a few seconds says it is on its way (a fault tester clicked during an outage
    // and saw nothing for 10 s, while the server waited for the database before its "try again").
    // A retry keeps the notice it has ("cannot save"): a screen reader heard the two said in turn at every retry.
    var slow = attempt ? 0 : setTimeout(function () { showConnectionNotice(true, "slow"); }, SLOW_POST_MS);
    fetch(action, { method: "POST", body: body, credentials: "same-origin", headers: { "X-Requested-With": "fetch" } })
      .then(function (response) { return response.text().then(function (html) { return [response, html]; }); })
      .finally(function () { clearTimeout(slow); })
      .then(function (pair) {  // [response, html]
        var response = pair[0], fresh = freshTable(pair[1]);
        if (!fresh && response.status >= 502 && response.status <= 504) throw response;
        posting = false;
        showConnectionNotice(false);
        if (!fresh) {
          // Refused without a table (e.g. signed out meanwhile): show that page, as a plain post would.
          document.open(); document.write(pair[1]); document.close();
          return;
        }
        swapIn(fresh);
        // "Next deal" was pressed at the foot of a long summary: the new deal starts at the table's top
        // (its round and wild rank, then the piles), not somewhere below, under the sticky turn line.
        var t = tableEl();
        if (/\/seen\/$/.test(action) && t && t.getBoundingClientRect().top < 0) t.scrollIntoView({ block: "start" });
        if (behind()) refresh();
      })
      .catch(function (error) {
        // An answer (a 503 "try again", a proxy's 502 or 504): the site's fault; no answer: the connection.
        showConnectionNotice(true, error instanceof Response);
        if (gameSocket && !navigator.onLine) gameSocket.drop();
        var pause = Math.min(POST_RETRY_MAX_MS, POST_RETRY_MIN_MS * Math.pow(2, attempt));
        pendingPost = { action: action, body: body, attempt: attempt + 1 };
        pendingPost.timer = setTimeout(retryPostNow, pause);
      });
  }

  function retryPostNow() {
    var post = pendingPost;
    if (!post) return;
    clearTimeout(post.timer);
    postMove(post.action, post.body, post.attempt);
  }

  /* The heartbeat: with nothing heard for a while, ping; without an answer soon after, the
   * socket is dead whatever the browser thinks ("Live" goes off and it reconnects). */
  function keepAlive(live) {
    var pingedAt = 0;
    setInterval(function () {
      if (!live.isOpen()) { pingedAt = 0; return; }
      var now = Date.now();
      if (pingedAt && live.heard < pingedAt && now - pingedAt > HEARTBEAT_GRACE_MS) { pingedAt = 0; live.drop(); return; }
      if (live.heard >= pingedAt) pingedAt = 0;
      if (!pingedAt && now - live.heard > HEARTBEAT_EVERY_MS) { pingedAt = now; live.send({ type: "ping" }); }
    }, 1000);
  }

  /* While the socket is down (or WebSockets are blocked on the way), re-check the table over HTTP now and then.
   * Started once: each failed reconnect (every few seconds) closes again, and restarting the timer there
   * kept it from ever firing (a tester: with Redis down, a player was never shown that it was their turn). */
  function pollWhileDown(down) {
    if (down) {
      if (!pollTimer) pollTimer = setInterval(refresh, POLL_WHILE_DOWN_MS);
      return;
    }
    clearInterval(pollTimer);
    pollTimer = null;
  }

  /* When the move clock's countdown has run out, the clock plays the turn within seconds: re-check the
   * table then, and again with growing pauses while it still shows the expired deadline (a safety
   * net for an announcement that never came, e.g. a clock in another process). */
  function watchDeadline() {
    var checkAt = 0, wait = 3000, version = -1;
    setInterval(function () {
      var t = tableEl(), countdown = t && t.querySelector("time.countdown[data-seconds-left]");
      if (!countdown || !countdown.dataset.loadedAt) return;  // clock.js stamps when it started counting
      if (shownVersion() !== version) { version = shownVersion(); checkAt = 0; wait = 3000; }
      var left = Number(countdown.dataset.secondsLeft) * 1000 - (Date.now() - Number(countdown.dataset.loadedAt));
      if (left > -2000) return;  // the clock's next pass (every 2 s) plays it and announces it
      if (!checkAt) checkAt = Date.now();
      if (Date.now() < checkAt) return;
      refresh(true);  // the same table again wiped the refusal of a move made too late (a fault tester)
      checkAt = Date.now() + wait;
      wait = Math.min(30000, wait * 2);
    }, 1000);
  }

  /* While a bot thinks (the table says so: data-bot-thinking), its moves come by the socket; should that
   * announcement never come (a lost message, a socket that only seems open), re-check the table after
   * 2 s, then with growing pauses, until it shows another version. */
  function watchBots() {
    var checkAt = 0, wait = 2000, version = -1;
    setInterval(function () {
      var t = tableEl();
      if (!t || !t.hasAttribute("data-bot-thinking")) { checkAt = 0; return; }
      if (shownVersion() !== version) { version = shownVersion(); checkAt = Date.now() + 2000; wait = 2000; }
      if (Date.now() < checkAt) return;
      refresh(true);  // the same table again would cancel a drag, or a refusal shown a moment ago
      wait = Math.min(30000, wait * 2);
      checkAt = Date.now() + wait;
    }, 500);
  }

  /* ---- start ------------------------------------------------------------------------------ */

  function startGame() {
    var t = tableEl();
    if (!t || !t.dataset.socketPath || !window.WebSocket) return;
    applyOrder();
    setUpHand();
    roveFromFocus();
    var everOpen = false;
    var socket = new LiveSocket(t.dataset.socketPath, {
      connecting: function () { if (!everOpen) setLiveStatus("connecting"); },
      open: function () { everOpen = true; setLiveStatus("live"); pollWhileDown(false); },
      close: function () { setLiveStatus("reconnecting"); pollWhileDown(true); },
      message: function (data) {
        // Every message also goes out as a DOM event (chat.js listens for {"type": "chat"}).
        document.dispatchEvent(new CustomEvent("threethirteen:game", { detail: data }));
        if (data.type !== "version") return;
        latestKnown = Math.max(latestKnown, data.version);
        // Any other version than the one shown (newer, several ahead, or the
        // current one after a reconnect that missed nothing): fetch if different.
        if (data.version !== shownVersion()) refresh();
      }
    });
    gameSocket = socket;
    keepAlive(socket);
    watchDeadline();
    watchBots();
    window.addEventListener("offline", function () { socket.drop(); });
    window.addEventListener("online", function () { socket.now(); retryPostNow(); refresh(); });
    document.addEventListener("visibilitychange", function () {
      if (document.visibilityState === "visible") { socket.now(); refresh(); }
    });
    window.addEventListener("pageshow", function (e) { if (e.persisted) { socket.now(); refresh(); } });
  }

  /* ---- the lobby: its lists of games, live ----------------------------------------------- */

  var LOBBY_RETRY_MS = 2000, LOBBY_SPREAD_MS = 1000;
  var lobbyFetching = false, lobbyAgain = false, lobbyTimer = null, lobbySpread = null, lobbyPending = null;
  function lobbyEl() { return document.getElementById("lobby-lists"); }

  function refreshLobby() {
    var lists = lobbyEl();
    if (!lists) return;
    if (lobbyFetching) { lobbyAgain = true; return; }
    clearTimeout(lobbyTimer);
    lobbyTimer = null;
    lobbyFetching = true;
    fetch(lists.dataset.listsUrl, { credentials: "same-origin", cache: "no-store", headers: { "X-Requested-With": "fetch" } })
      .then(function (response) {
        if (!response.ok) throw new Error(String(response.status));
        return response.text();
      })
      .then(function (html) {
        var fresh = new DOMParser().parseFromString(html, "text/html").getElementById("lobby-lists");
        if (fresh) swapLobby(fresh);
      })
      .catch(function () { lobbyTimer = setTimeout(refreshLobby, LOBBY_RETRY_MS * 5); })
      .then(function () {
        lobbyFetching = false;
        if (lobbyAgain) { lobbyAgain = false; refreshLobby(); }
      });
  }

  function lobbyInHand(lists) { return lists.contains(document.activeElement) || !!lists.querySelector("details[open]"); }
  function swapLobby(fresh) {
    var lists = lobbyEl();
    lobbyPending = null;
    if (!lists || fresh.getAttribute("data-lobby-stamp") === lists.getAttribute("data-lobby-stamp")) return;
    // Not from under the person's hands (a seed contribution being typed for a join, a focused button):
    // kept, and swapped in once the focus leaves the lists and no join is open (not fetched again meanwhile).
    if (lobbyInHand(lists)) { lobbyPending = fresh; return; }
    lists.replaceWith(document.importNode(fresh, true));
  }
  function swapPendingLobby() {
    setTimeout(function () {  // once the focus has moved on
      var lists = lobbyEl();
      if (lobbyPending && lists && !lobbyInHand(lists)) swapLobby(lobbyPending);
    }, 0);
  }
  function lobbySoon() {
    // Every open lobby page hears a change at once: each waits a random moment of up to LOBBY_SPREAD_MS, so
    // their fetches are spread, and changes that come meanwhile are fetched together.
    if (!lobbySpread) lobbySpread = setTimeout(function () { lobbySpread = null; refreshLobby(); }, Math.random() * LOBBY_SPREAD_MS);
  }

  function startLobby() {
    var lists = lobbyEl();
    if (!lists || !lists.dataset.socketPath || !window.WebSocket) return;
    var downTimer = null;
    var socket = new LiveSocket(lists.dataset.socketPath, {
      open: function () { clearInterval(downTimer); downTimer = null; },
      close: function () { if (!downTimer) downTimer = setInterval(refreshLobby, POLL_WHILE_DOWN_MS); },
      message: function (data) {
        if (data.type !== "lobby") return;
        var shown = lobbyEl();
        if (typeof data.stamp !== "string") { lobbySoon(); return; }  // a bare "lobby": a listed table changed
        // With a stamp (connect, heartbeat): only if it differs from the lists shown, and from those fetched
        // and waiting to be swapped in.
        var waiting = lobbyPending && lobbyPending.getAttribute("data-lobby-stamp");
        if (!shown || (data.stamp !== shown.getAttribute("data-lobby-stamp") && data.stamp !== waiting)) refreshLobby();
      }
    });
    keepAlive(socket);
    window.addEventListener("offline", function () { socket.drop(); });
    window.addEventListener("online", function () { socket.now(); });
    document.addEventListener("visibilitychange", function () {
      if (document.visibilityState === "visible") socket.now();
    });
    window.addEventListener("pageshow", function (e) { if (e.persisted) { socket.now(); refreshLobby(); } });
    // "My games" says whose turn it is: when the person's count of games waiting changes, so may it.
    var badge = document.getElementById("turns-waiting");
    var count = badge ? badge.getAttribute("data-count") : null;
    document.addEventListener("threethirteen:user", function (e) {
      var data = e.detail || {};
      if (data.type === "lobby") { lobbySoon(); return; }  // a private table of theirs changed (their own socket)
      if (data.type !== "turns" || String(data.count) === count) return;
      count = String(data.count);
      refreshLobby();
    });
    document.addEventListener("focusout", swapPendingLobby);
    document.addEventListener("toggle", swapPendingLobby, true);  // a join's <details> closed (toggle does not bubble)
  }

  function startUser() {
    var path = document.body && document.body.getAttribute("data-user-socket-path");
    if (!path || !window.WebSocket) return;
    new LiveSocket(path, {
      message: function (data) {
        document.dispatchEvent(new CustomEvent("threethirteen:user", { detail: data }));
      }
    });
  }

  // The header's "games waiting on you" badge follows the user socket's counts.
  document.addEventListener("threethirteen:user", function (e) {
    var data = e.detail || {};
    var badge = document.getElementById("turns-waiting");
    if (!badge || data.type !== "turns" || typeof data.count !== "number") return;
    badge.textContent = String(data.count);
    badge.setAttribute("data-count", String(data.count));
    badge.classList.toggle("none", data.count === 0);
    // Its words too: they kept the count the page was served with (a tester read "1 game" beside a 2).
    badge.title = interpolate(
      ngettext("%(counter)s game waits on you", "%(counter)s games wait on you", data.count), { counter: data.count }, true
    );
  });

  function start() { startGame(); startLobby(); startUser(); }
  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", start);
  else start();
})();
