// Move clock countdowns: an enhancement only (the deadline is in the page as text).
// Every <time class="countdown" data-seconds-left="N"> counts down once a second;
// elements swapped in later (live updates) are picked up on the next tick.
(function () {
  "use strict";
  function pad(n) { return (n < 10 ? "0" : "") + n; }
  function format(seconds) {
    var d = Math.floor(seconds / 86400), h = Math.floor(seconds % 86400 / 3600),
        m = Math.floor(seconds % 3600 / 60), s = seconds % 60;
    if (d > 0) return d + "d " + h + "h " + pad(m) + "m";
    if (h > 0) return h + "h " + pad(m) + "m";
    return m + ":" + pad(s);
  }
  function tick() {
    var now = Date.now();
    document.querySelectorAll("time.countdown[data-seconds-left]").forEach(function (el) {
      if (!el.dataset.loadedAt) el.dataset.loadedAt = String(now);
      var left = Number(el.dataset.secondsLeft) - Math.floor((now - Number(el.dataset.loadedAt)) / 1000);
      el.textContent = left > 0 ? format(left) : el.dataset.expired;
      el.classList.toggle("urgent", left > 0 && left <= 30);
    });
  }
  tick();
  setInterval(tick, 1000);
})();
