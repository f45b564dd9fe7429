/* The browser's time zone, for the server to show times in it (accounts.middleware.UserTimeZoneMiddleware).
 *
 * - Writes the IANA zone name (e.g. "Europe/Prague") in the "tz" cookie whenever it is missing
 *   or differs: the next page shows local times; a signed-in player without a zone on their
 *   profile gets it saved there once (the profile's choice wins afterwards).
 * - Fills the sign-up form's hidden time_zone field, so a new account starts with it.
 * Without JavaScript, times show in the profile's zone, else in UTC (the page says which).
 */
(function () {
  "use strict";
  var zone = "";
  try { zone = Intl.DateTimeFormat().resolvedOptions().timeZone || ""; } catch (e) { return; }
  if (!/^[A-Za-z0-9_+\-\/]{1,64}$/.test(zone)) return;
  var current = document.cookie.split(/;\s*/).filter(function (c) { return c.indexOf("tz=") === 0; })[0];
  if (current !== "tz=" + zone) {
    var cookie = ["tz=" + zone, "path=/", "max-age=31536000", "SameSite=Lax"];
    if (location.protocol === "https:") cookie.push("Secure");
    document.cookie = cookie.join("; ");
  }
  function fill() {
    document.querySelectorAll("input[data-browser-time-zone]").forEach(function (field) {
      if (!field.value) field.value = zone;
    });
  }
  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", fill);
  else fill();
})();
