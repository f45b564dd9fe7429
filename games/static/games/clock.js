// Move clock countdowns: an enhancement only (the deadline is in the page as text).
// Every <time class="countdown" data-seconds-left="N"> counts down once a second;
// elements swapped in later (live updates) are picked up on the next tick.
// The same text as the server renders (time_left in games/templatetags/game_time.py).
// The units are words of the reader's language: Django's JavaScript catalog (loaded
// before this file by base.html) gives gettext and interpolate.
(function () {
  "use strict";
  var gettext = window.gettext || function (text) { return text; };
  var interpolate = window.interpolate || function (format, values) {
    return format.replace(/%\((\w+)\)s/g, function (all, name) { return String(values[name]); });
  };
  function pad(n) { return (n < 10 ? "0" : "") + n; }
  function format(seconds) {
    var d = Math.floor(seconds / 86400), h = Math.floor(seconds % 86400 / 3600),
        m = Math.floor(seconds % 3600 / 60), s = seconds % 60;
    var values = { days: d, hours: h, minutes: pad(m), seconds: pad(s) };
    // Translators: a countdown of days, hours and minutes, e.g. "2d 5h 07m"
    if (d > 0) return interpolate(gettext("%(days)sd %(hours)sh %(minutes)sm"), values, true);
    // Translators: a countdown of hours and minutes, e.g. "5h 07m"
    if (h > 0) return interpolate(gettext("%(hours)sh %(minutes)sm"), values, true);
    return m + ":" + pad(s);
  }
  function tick() {
    var now = Date.now();
    document.querySelectorAll("time.countdown[data-seconds-left]").forEach(function (el) {
      if (!el.dataset.loadedAt) el.dataset.loadedAt = String(now);
      var elapsed = Math.floor((now - Number(el.dataset.loadedAt)) / 1000);
      var left = Number(el.dataset.secondsLeft) - elapsed;
      // Time up and the turn still unplayed long after: the site's clock is late (games/selectors.py turn_clock).
      var late = el.dataset.late && el.dataset.lateIn !== undefined && Number(el.dataset.lateIn) - elapsed <= 0;
      // The same words as the server's text (games/templatetags/game_time.py), "5h 07m left".
      el.textContent = left > 0 ? interpolate(gettext("%(left)s left"), { left: format(left) }, true)
        : late ? el.dataset.late : el.dataset.expired;
      el.classList.toggle("urgent", left > 0 && left <= 30);
    });
  }
  tick();
  setInterval(tick, 1000);
})();
