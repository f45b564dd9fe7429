/* Push turn notices on the profile (accounts/_push_panel.html; loaded only while the site offers
 * Web Push).  Without JavaScript or the Push API the panel says so and nothing else happens.
 *
 * - On load: if this browser already holds a subscription (made here before), it is posted
 *   again, so the server's copy is current, and the button says "on".
 * - The button asks the browser's permission (only then), registers the service worker
 *   (/sw.js, scope "/"), subscribes with the site's VAPID key and posts the subscription
 *   (endpoint and keys) with the CSRF token.  Pressed again, it withdraws the subscription here
 *   and on the server.  A subscription this browser held for someone else is replaced by a new one.
 * Words come from the template's data-label-* attributes and the JavaScript catalog.
 */
(function () {
  "use strict";

  var panel = document.querySelector("[data-push]");
  if (!panel) return;
  var row = panel.querySelector("[data-push-row]");
  var button = panel.querySelector("[data-push-toggle]");
  var status = panel.querySelector("[data-push-status]");
  var unsupported = panel.querySelector("[data-push-unsupported]");
  var devices = panel.querySelector(".push-devices");
  var tokenField = panel.querySelector('input[name="csrfmiddlewaretoken"]');
  var supported = window.isSecureContext && "serviceWorker" in navigator && "PushManager" in window &&
    typeof window.Notification === "function" && !!window.fetch;
  if (!supported || !button || !tokenField) return;
  if (unsupported) unsupported.hidden = true;
  row.hidden = false;

  var current = null;  // this browser's subscription, while the server keeps it for this person

  function keyBytes(base64url) {
    var padded = base64url.replace(/-/g, "+").replace(/_/g, "/");
    while (padded.length % 4) padded += "=";
    var raw = window.atob(padded), bytes = new Uint8Array(raw.length);
    for (var i = 0; i < raw.length; i++) bytes[i] = raw.charCodeAt(i);
    return bytes;
  }

  function show(on, message) {
    button.textContent = panel.getAttribute(on ? "data-label-on" : "data-label-off");
    button.setAttribute("aria-pressed", on ? "true" : "false");
    status.textContent = message || "";
  }

  function showDevices(count) {
    if (!devices || typeof count !== "number" || !window.ngettext) return;
    devices.textContent = window.interpolate(
      window.ngettext("On for %(counter)s device.", "On for %(counter)s devices.", count), { counter: count }, true);
  }

  function post(url, fields) {
    var body = new FormData();
    Object.keys(fields).forEach(function (name) { body.append(name, fields[name]); });
    return fetch(url, {
      method: "POST", body: body, credentials: "same-origin",
      headers: { "X-CSRFToken": tokenField.value, "X-Requested-With": "fetch" }
    }).then(function (response) {
      return response.json().catch(function () { return {}; }).then(function (answer) {
        if (!response.ok) {
          var error = new Error(answer.error || String(response.status));
          error.fromServer = !!answer.error;
          throw error;
        }
        return answer;
      });
    });
  }

  function keep(subscription) {
    var json = subscription.toJSON();
    return post(panel.getAttribute("data-subscribe-url"), {
      endpoint: json.endpoint, p256dh: (json.keys || {}).p256dh || "", auth: (json.keys || {}).auth || ""
    }).then(function (answer) { showDevices(answer.devices); return subscription; });
  }

  function failed(error) {
    if (window.Notification.permission === "denied") return panel.getAttribute("data-label-blocked");
    return error && error.fromServer ? error.message : panel.getAttribute("data-label-failed");
  }

  navigator.serviceWorker.getRegistration("/").then(function (registration) {
    return registration ? registration.pushManager.getSubscription() : null;
  }).then(function (subscription) {
    if (!subscription || window.Notification.permission !== "granted") { show(false); return; }
    return keep(subscription).then(function () { current = subscription; show(true); });
  }).catch(function () { current = null; show(false); });

  function turnOn() {
    return Promise.resolve(window.Notification.requestPermission()).then(function (permission) {
      if (permission !== "granted") throw new Error("permission");
      return navigator.serviceWorker.register(panel.getAttribute("data-worker-url"), { scope: "/" });
    }).then(function () {
      return navigator.serviceWorker.ready;
    }).then(function (registration) {
      return registration.pushManager.getSubscription().then(function (old) {
        return old ? old.unsubscribe() : null;  // a new subscription of this person's own
      }).then(function () {
        return registration.pushManager.subscribe({
          userVisibleOnly: true, applicationServerKey: keyBytes(panel.getAttribute("data-vapid-key"))
        });
      });
    }).then(keep).then(function (subscription) { current = subscription; show(true); });
  }

  function turnOff() {
    var subscription = current;
    return post(panel.getAttribute("data-unsubscribe-url"), { endpoint: subscription.endpoint })
      .then(function (answer) { showDevices(answer.devices); })
      .then(function () { return subscription.unsubscribe(); })
      .then(function () { current = null; show(false); });
  }

  button.addEventListener("click", function () {
    button.disabled = true;
    (current ? turnOff() : turnOn()).catch(function (error) { show(!!current, failed(error)); })
      .then(function () { button.disabled = false; });
  });
})();
