/* The service worker of push turn notices, served at /sw.js (accounts.push_views.service_worker)
 * only while the site offers Web Push; registered by push.js when a person turns notices on.
 *
 * - "push": the server's notice is JSON {title, body, url, tag, icon}, already in the person's
 *   language; it is shown as is (never a card: the server writes only the game, the deadline
 *   and the link).  One tag per game, so a reminder replaces that game's "your turn".
 * - "notificationclick": the table opens (or an open tab of it comes forward).  Only addresses
 *   of this site are opened: another origin's address keeps just its path, on this site.
 */
(function () {
  "use strict";

  function onThisSite(url) {
    try {
      var target = new URL(url, self.location.origin);
      if (target.origin === self.location.origin) return target.href;
      return new URL(target.pathname + target.search, self.location.origin).href;
    } catch (e) {
      return self.location.origin + "/";
    }
  }

  function text(value) { return typeof value === "string" ? value : ""; }

  self.addEventListener("install", function () { self.skipWaiting(); });
  self.addEventListener("activate", function (event) { event.waitUntil(self.clients.claim()); });

  self.addEventListener("push", function (event) {
    var data = {};
    try { data = event.data ? event.data.json() : {}; } catch (e) { data = {}; }
    if (!data || typeof data !== "object") data = {};
    var options = {
      body: text(data.body),
      tag: text(data.tag) || "threethirteen-turn",
      renotify: true,
      data: { url: onThisSite(text(data.url) || "/") }
    };
    if (text(data.icon)) options.icon = onThisSite(data.icon);
    event.waitUntil(self.registration.showNotification(text(data.title) || self.location.host, options));
  });

  self.addEventListener("notificationclick", function (event) {
    event.notification.close();
    var url = onThisSite((event.notification.data && event.notification.data.url) || "/");
    event.waitUntil(self.clients.matchAll({ type: "window", includeUncontrolled: true }).then(function (list) {
      for (var i = 0; i < list.length; i++) {
        if (list[i].url === url && "focus" in list[i]) return list[i].focus();
      }
      return self.clients.openWindow ? self.clients.openWindow(url) : null;
    }));
  });
})();
